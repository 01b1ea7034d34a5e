"""Every connector call a user can make, against this project's service (``kit``) and the stand-ins of
the three real code bases: each call works, or degrades with a clear sentence (a
:class:`~connector.errors.NotOfferedError`), never with a traceback or a wrong answer.

``docs/real_tenants.md`` has the same calls in a table, per variant."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

from analysis.register import sales_register
from connector import Client, ConflictError, NotFoundError, wait_for_ticket
from connector.builders import CreditNote, Customer, Invoice, Line, Receipt
from connector.consult import check_document
from connector.errors import NotOfferedError, ValidationError
from connector.quotations import Quotation
from connector.sale_notes import SaleNote
from connector.sheets import NoteLine
from sunat.calendar import peru_today
from sunat.identity import ruc_check_digit
from tests.conftest import LiveService
from tests.real_tenant.seed import CUSTOMERS, seed
from tests.real_tenant.server import StandIn, running, stand_in
from tests.real_tenant.variants import VARIANTS
from tests.samples.dispatches import carrier_body, dispatch_body
from tests.samples.withholding import perception, retention
from tests.shops import Shop, new_shop

TARGETS = ("kit", *sorted(VARIANTS))


@dataclass
class Target:
    """Where the calls go: this project's service (``standin`` is None) or a stand-in."""

    name: str
    client: Client
    standin: StandIn | None

    @property
    def real(self) -> bool:
        return self.standin is not None

    @property
    def variant(self) -> str:
        return self.standin.variant.name if self.standin else "kit"


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "calls")


@pytest.fixture(params=TARGETS)
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    if request.param == "kit":
        shop: Shop = request.getfixturevalue("shop")
        with shop.client() as client:
            yield Target("kit", client, None)
        return
    standin = stand_in(VARIANTS[request.param], limit=1_000)
    seed(standin.tenant)
    with running(standin), Client(standin.root, standin.token, cache=False) as client:
        yield Target(request.param, client, standin)


def _ruc() -> str:
    """A RUC nobody else in the tests has, with its check digit."""
    first10 = "20" + str(uuid.uuid4().int % 10**8).zfill(8)
    return first10 + str(ruc_check_digit(first10))


def _tag() -> str:
    return uuid.uuid4().hex[:6].upper()


def _invoice(**changes: object) -> Invoice:
    return Invoice(
        customer=Customer.ruc("20100070970", "SUPERMERCADOS PERUANOS S.A."),
        lines=[Line("Arroz Costeño 5 kg", 2, unit_price="24.90", code="P001")],
        **changes,  # type: ignore[arg-type]
    )


def _receipt() -> Receipt:
    return Receipt(
        customer=Customer.dni("46027862", "JUAN PEREZ QUISPE"),
        lines=[Line("Aceite Primor 1 L", 1, unit_price="11.50")],
    )


def _offered_or_says_so(call: object, *, offered: bool) -> object:
    """Run ``call``; when the tenant lacks the endpoint it must say so in one sentence."""
    assert callable(call)
    if offered:
        return call()
    with pytest.raises(NotOfferedError) as caught:
        call()
    assert "no ofrece" in caught.value.message and "\n" not in caught.value.message
    return None


# -- documents ------------------------------------------------------------------------------------


def test_ping(target: Target) -> None:
    assert target.client.ping().ok


def test_issue_find_and_list(target: Target) -> None:
    result = target.client.documents.issue(_invoice())
    assert result.accepted and result.number.startswith("F001-")
    series, number = result.number.split("-")
    found = target.client.documents.find(series, int(number))
    assert found is not None and found.external_id == result.external_id
    assert found.date_of_issue == peru_today() and found.total == Decimal("49.80")
    rows = target.client.documents.list(peru_today() - dt.timedelta(days=30), peru_today())
    assert result.external_id in {r.external_id for r in rows}
    assert all(r.date_of_issue is not None for r in rows)
    latest = target.client.documents.latest()
    assert 0 < len(latest) <= 50


def test_the_local_store_syncs_from_what_the_tenant_offers(target: Target, tmp_path: Path) -> None:
    """A real tenant has no list extension: the store reads it by ranges and, synced again, asks only
    for the recent week and the days still moving; this service is walked with the extension."""
    from connector.store import LocalStore

    today = peru_today()
    start = today - dt.timedelta(days=30)
    issued = target.client.documents.issue(_invoice())
    with LocalStore.for_client(target.client, tmp_path) as store:
        report = store.sync(start, today)
        assert report.extended is (not target.real)
        listed = target.client.documents.list(start, today)
        kept = store.documents(start, today)
        assert {r["external_id"] for r in kept.rows} == {r.external_id for r in listed}
        assert issued.external_id in {r["external_id"] for r in kept.rows}
        # the same Decimal totals from the stored rows as from the tenant's answer
        assert sum((r.total for r in kept), Decimal(0)) == sum((r.total for r in listed), Decimal(0))
        again = store.sync(start, today)
        moving = {r.date_of_issue for r in listed if r.state_type_id in ("01", "03", "13")}
        for first, last in again.fetched:
            days = {first + dt.timedelta(days=n) for n in range((last - first).days + 1)}
            assert all(d >= today - dt.timedelta(days=7) or d in moving for d in days)


def test_send_later_and_update_status(target: Target) -> None:
    unsent = target.client.documents.issue(_invoice(send=False))
    assert unsent.state_type_id == "01"
    sent = target.client.documents.send(unsent.external_id)
    assert sent.state_type_id == "05"
    target.client.documents.update_status(unsent.external_id, "05")


def test_downloads_and_the_authority_check(target: Target) -> None:
    accepted = target.client.documents.issue(_invoice())
    assert b"<" in target.client.documents.download_xml(accepted.external_id)
    assert target.client.documents.download_pdf(accepted.external_id).startswith(b"%PDF")
    assert target.client.documents.download_cdr(accepted.external_id)
    boleta = target.client.documents.issue(_receipt())
    with pytest.raises(NotFoundError):  # no CDR of a boleta not declared yet: real tenants answer 500
        target.client.documents.download_cdr(boleta.external_id)
    record = target.client.documents.find("F001", int(accepted.number.split("-")[1]))
    assert record is not None
    check = check_document(target.client, record)
    assert check.consistent, check.message


def test_credit_note_reaches_the_sales_register(target: Target) -> None:
    invoice = target.client.documents.issue(_invoice())
    note = target.client.documents.issue(
        CreditNote(
            customer=Customer.ruc("20100070970", "SUPERMERCADOS PERUANOS S.A."),
            lines=[Line("Arroz Costeño 5 kg", 1, unit_price="24.90")],
            affected_external_id=invoice.external_id,
            note_type="01",
            reason="Anulación de la operación",
        )
    )
    register = sales_register(target.client, peru_today())
    entry = next(e for e in register.entries if f"{e.series}-{int(e.number)}" == note.number)
    assert f"{entry.affected_series}-{int(entry.affected_number)}" == invoice.number
    assert entry.affected_date == peru_today()
    assert not [w for w in register.warnings if note.number in w]


# -- summaries and voided communications ----------------------------------------------------------


def test_declare_boletas_and_void_one(target: Target) -> None:
    boleta = target.client.documents.issue(_receipt())
    ticket = target.client.summaries.declare(peru_today())
    status = wait_for_ticket(
        target.client.summaries, external_id=ticket.external_id, timeout=30, initial=0.05
    )
    assert status.accepted
    voiding = target.client.summaries.void(peru_today(), [(boleta.external_id, "Error en el monto")])
    assert wait_for_ticket(
        target.client.summaries, external_id=voiding.external_id, timeout=30, initial=0.05
    ).accepted
    assert target.client.summaries.download_xml(ticket.external_id)


def test_void_a_factura_with_the_date_the_tenant_reads(target: Target) -> None:
    invoice = target.client.documents.issue(_invoice())
    ticket = target.client.voided.void(peru_today(), [(invoice.external_id, "Error en el RUC")])
    assert wait_for_ticket(
        target.client.voided, external_id=ticket.external_id, timeout=30, initial=0.05
    ).accepted
    record = target.client.documents.find("F001", int(invoice.number.split("-")[1]))
    assert record is not None and record.state_type_id == "11"


def test_ticket_lists(target: Target) -> None:
    for family in (target.client.summaries, target.client.voided):
        _offered_or_says_so(family.latest, offered=not target.real)
        _offered_or_says_so(lambda f=family: f.list(peru_today(), peru_today()), offered=not target.real)


# -- sale notes and quotations --------------------------------------------------------------------


def _product_and_customer(client: Client) -> tuple[int, int]:
    code = f"RT-{_tag()}"
    product = client.items.create(code=code, description=f"Producto {code}", sale_price="24.90", stock=50)
    customer = client.persons.create(number=_ruc(), name=f"CLIENTE {code} S.A.C.", identity_type="6")
    return product.id, customer.id


def test_sale_note_series(target: Target) -> None:
    series = target.client.sale_notes.series()
    assert series and series[0].id and series[0].number


def test_sale_note_by_ids_then_its_factura_once(target: Target) -> None:
    product_id, customer_id = _product_and_customer(target.client)
    series = target.client.sale_notes.series()[0]
    note = target.client.sale_notes.issue(
        SaleNote(
            series_id=series.id,
            customer_id=customer_id,
            lines=[NoteLine(2, unit_price="24.90", item_id=product_id)],
        )
    )
    assert note.number.startswith(series.number)
    assert target.client.sale_notes.download_pdf(note.external_id).startswith(b"%PDF")
    made = target.client.sale_notes.generate_cpe(note.id, document_type="01")
    assert made.number.startswith("F")
    with pytest.raises(ConflictError):
        target.client.sale_notes.generate_cpe(note.id, document_type="01")


def test_sale_note_by_product_code_and_customer_data(target: Target) -> None:
    series = target.client.sale_notes.series()[0]
    code = f"NEW-{_tag()}"
    note = target.client.sale_notes.issue(
        SaleNote(
            series_id=series.id,
            customer=Customer.ruc(_ruc(), f"NUEVO CLIENTE {code} S.A.C.", ubigeo="150101"),
            lines=[NoteLine(1, unit_price="30.00", code=code, description=f"Producto nuevo {code}")],
        )
    )
    assert note.number
    assert [p.code for p in target.client.items.search(code)] == [code]


@pytest.mark.parametrize("by", ["id", "code"])
def test_a_sale_note_line_carries_its_products_whole_row(by: str) -> None:
    """Real tenants read ``item->is_set`` when they save a note's line and print ``item->description``
    from it: each line carries the product's ``search-items`` row, as the tenant's mobile app sends it,
    whether the line named the product by id or by code."""
    standin = stand_in(VARIANTS["pro9"])
    seed(standin.tenant)
    with running(standin), Client(standin.root, standin.token, cache=False) as client:
        product = next(p for p in client.items.search("Arroz", fresh=True) if p.code)
        customer_id = standin.tenant.persons[0].id
        line = (
            NoteLine(2, unit_price="24.90", item_id=product.id)
            if by == "id"
            else NoteLine(2, unit_price="24.90", code=product.code, description="otro texto")
        )
        series = client.sale_notes.series()[0]
        note = client.sale_notes.issue(SaleNote(series_id=series.id, customer_id=customer_id, lines=[line]))
    stored = standin.tenant.sale_notes[-1]
    assert stored.number_full == note.number
    item = stored.items[0]["item"]
    assert item == product.row and item["is_set"] is False and item["description"] == product.description
    assert stored.items[0]["item_id"] == product.id


def test_a_sale_note_of_a_product_the_tenant_does_not_list_is_not_sent() -> None:
    standin = stand_in(VARIANTS["pro9"])
    seed(standin.tenant)
    with running(standin), Client(standin.root, standin.token, cache=False) as client:
        series = client.sale_notes.series()[0]
        with pytest.raises(ValidationError) as caught:
            client.sale_notes.issue(
                SaleNote(
                    series_id=series.id,
                    customer_id=standin.tenant.persons[0].id,
                    lines=[NoteLine(1, unit_price="5.00", item_id=987_654)],
                )
            )
    assert "el producto 987654 no está entre los que la empresa lista" in caught.value.message
    assert caught.value.status is None and standin.count("POST", "/api/sale-note") == 0


def test_sale_note_list_of_a_range(target: Target) -> None:
    start, end = peru_today() - dt.timedelta(days=20), peru_today()
    notes = target.client.sale_notes.list(start=start, end=end)
    assert all(n.date_of_issue is not None and start <= n.date_of_issue <= end for n in notes)
    if target.standin is not None:  # 21 seeded notes in the range: more than Pro9 and Tukifac answer
        seeded = {n.number_full for n in target.standin.tenant.sale_notes if n.date_of_issue >= start}
        assert notes.complete and seeded == {n.number for n in notes} and not notes.note


def test_quotation_create_list_and_pdf(target: Target) -> None:
    product_id, customer_id = _product_and_customer(target.client)
    ref = target.client.quotations.create(
        Quotation(customer_id=customer_id, lines=[NoteLine(1, unit_price="24.90", item_id=product_id)])
    )
    assert ref.number and ref.total == Decimal("24.90")
    assert ref.number in {q.number for q in target.client.quotations.list()}
    assert target.client.quotations.download_pdf(ref.external_id).startswith(b"%PDF")


# -- persons, products, inventory ----------------------------------------------------------------


def test_persons_listed_by_their_type(target: Target) -> None:
    tag = _tag()
    customer = target.client.persons.create(number=_ruc(), name=f"ACME NORTE {tag} S.A.C.", identity_type="6")
    supplier = target.client.persons.create(
        number=_ruc(), name=f"TRANSPORTES NORTE {tag} S.A.C.", identity_type="6", person_type="suppliers"
    )
    customers = target.client.persons.list("customers", f"NORTE {tag}")
    suppliers = target.client.persons.list("suppliers", f"NORTE {tag}")
    assert [p.id for p in customers] == [customer.id]
    assert [p.id for p in suppliers] == [supplier.id]
    everyone = target.client.persons.list("customers")
    assert customer.id in {p.id for p in everyone} and supplier.id not in {p.id for p in everyone}


def test_persons_search_pages_keep_the_search(target: Target) -> None:
    tag = _tag()
    made = {
        target.client.persons.create(
            number=f"1{uuid.uuid4().int % 10**7:07d}",
            name=f"CLIENTE PAGINADO {tag} {i:02d}",
            identity_type="1",
        ).id
        for i in range(23)
    }
    found = target.client.persons.list("customers", f"PAGINADO {tag}")
    assert {p.id for p in found} == made


def test_person_edit_does_not_duplicate(target: Target) -> None:
    number = _ruc()
    person = target.client.persons.create(number=number, name=f"EDITABLE {_tag()} S.A.C.", identity_type="6")
    offered = target.variant != "pro5"
    _offered_or_says_so(
        lambda: target.client.persons.update(
            person.id, number=number, name=f"EDITADO {_tag()} S.A.C.", identity_type="6"
        ),
        offered=offered,
    )
    rows = target.client.persons.list("customers", number)
    assert [p.id for p in rows] == [person.id]
    assert rows[0].name.startswith("EDITADO" if offered else "EDITABLE")


def test_products_and_stock(target: Target) -> None:
    code = f"STK-{_tag()}"
    product = target.client.items.create(
        code=code, description=f"Producto {code}", sale_price="1250.00", stock=10
    )
    assert product.sale_price == Decimal("1250.00")
    updated = target.client.items.update(
        product.id, code=code, description=f"Producto {code} editado", sale_price="1300.00"
    )
    assert updated.sale_price == Decimal("1300.00")
    assert target.client.inventory.add(code, 5)
    assert target.client.inventory.remove(code, 3)
    [found] = target.client.items.search(code)
    assert found.stock == Decimal(12)
    products = target.client.items.list(code)
    assert [p.id for p in products] == [product.id]
    _offered_or_says_so(lambda: target.client.inventory.kardex(product.id), offered=not target.real)


# -- guides and withholding receipts ------------------------------------------------------------


def test_guides(target: Target) -> None:
    if target.real:
        target.standin.tenant.series["09"].append((99, "T001"))  # type: ignore[union-attr]
    guide = target.client.dispatches.issue(dispatch_body())
    assert guide.number.startswith("T001-")
    gre = target.variant != "pro5"
    sent = _offered_or_says_so(lambda: target.client.dispatches.send(guide.external_id), offered=gre)
    if sent is not None:
        assert wait_for_ticket(
            target.client.dispatches, external_id=guide.external_id, timeout=30, initial=0.05
        ).accepted  # type: ignore[arg-type]
    _offered_or_says_so(lambda: target.client.dispatches.issue(carrier_body()), offered=gre)
    _offered_or_says_so(
        lambda: target.client.dispatches.list(peru_today(), peru_today()), offered=not target.real
    )


def test_withholding_receipts(target: Target) -> None:
    for family, body in ((target.client.retentions, retention()), (target.client.perceptions, perception())):
        result = family.issue(body)
        assert result.number
        _offered_or_says_so(family.latest, offered=not target.real)
        _offered_or_says_so(lambda f=family: f.list(peru_today(), peru_today()), offered=not target.real)


def test_seeded_history_reads_to_the_cent(target: Target) -> None:
    if not target.real:
        pytest.skip("the seeded history is the stand-in's")
    rows = target.client.documents.list(peru_today() - dt.timedelta(days=30), peru_today())
    assert len(rows) == len(target.standin.tenant.documents)  # type: ignore[union-attr]
    total = sum((r.total for r in rows), Decimal(0))
    expected = sum((d.totals["total"] for d in target.standin.tenant.documents), Decimal(0))  # type: ignore[union-attr]
    assert total == expected
    dollars = next(r for r in rows if r.currency_type_id == "USD")
    assert dollars.total == Decimal("49.80") and dollars.customer_name == CUSTOMERS[1][2]
