"""The back-office families of the connector against the live service: persons, items, inventory, sale
notes and quotations, with typed results, paging along links.next, DataFrames, builders whose totals
``sunat`` computes, and the plugin hooks of each family."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from connector import Client, ConflictError, NotFoundError, ValidationError
from connector.builders import Customer
from connector.inventory import KardexMove
from connector.items import Product
from connector.persons import Person
from connector.quotations import Quotation, QuotationRef
from connector.sale_notes import SaleNote, SaleNoteRef
from connector.sheets import NoteLine
from tests.common import Recorder
from tests.conftest import LiveService
from tests.connector.standin import Answer, StandIn
from tests.shops import Shop, new_shop

FAMILIES = ("persons", "items", "inventory", "sale_notes", "quotations")


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "connector-office")


def internal_code(_recorder: Recorder, family: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The recorder's ``prepare``: a person gets the internal code ``PLUGIN``."""
    return {**payload, "internal_code": "PLUGIN"} if family == "persons" else None


def recorder_of(block: str | None = None) -> Recorder:
    """Records every hook call, adds a form field to each family; ``block`` names a family it refuses."""
    return Recorder(block, field="x", prepare=internal_code, fields=FAMILIES)


@pytest.fixture
def recorder() -> Recorder:
    return recorder_of()


@pytest.fixture
def client(shop: Shop, recorder: Recorder) -> Iterator[Client]:
    with shop.client(plugins=[recorder]) as c:
        yield c


def test_persons_create_update_and_page_through_every_record(live: LiveService, recorder: Recorder) -> None:
    fresh = new_shop(live, "connector-persons")
    with fresh.client(plugins=[recorder]) as client:
        for index in range(23):
            client.persons.create(number=f"42{index:06d}", name=f"Persona {index:02d}", identity_type="1")
        people = client.persons.list()
        assert [p.name for p in people] == [f"Persona {i:02d}" for i in range(23)]  # 2 pages followed
        assert all(isinstance(p, Person) and p.identity_code == "DNI" for p in people)
        edited = client.persons.update(
            people[0].id, number="42000000", name="Persona 00", identity_type="1", address="Av. 1"
        )
        assert edited.id == people[0].id and edited.address == "Av. 1"
        assert [p.number for p in client.persons.list(search="Persona 07")] == ["42000007"]
        frame = client.persons.list().to_dataframe()
        assert len(frame) == 23 and list(frame.columns)[:3] == ["id", "number", "name"]
        with pytest.raises(ValidationError) as refused:
            client.persons.create(number="42000001", name="Otra", identity_type="1")
        assert refused.value.error_code == "DUPLICATE_PERSON"
    assert recorder.of("persons")[:3] == ["prepare", "validate", "issued"]
    assert isinstance(recorder.result("persons"), Person)


def test_items_inventory_and_kardex(client: Client, recorder: Recorder) -> None:
    product = client.items.create(code="CON-1", description="Cuaderno A4", sale_price="4.50", stock=10)
    assert isinstance(product, Product) and product.stock == Decimal("10")
    assert product.warehouses[0].stock == Decimal("10")
    found = client.items.search("cuaderno")
    assert [p.id for p in found] == [product.id]
    assert client.items.update(
        product.id, code="CON-1", description="Cuaderno A4 rayado", sale_price=5
    ).sale_price == Decimal("5.00")
    assert client.inventory.add("CON-1", 5) == "Ingreso registrado correctamente"
    assert client.inventory.remove("CON-1", "2.5", transaction="13") == "Salida registrada correctamente"
    with pytest.raises(ValidationError) as refused:
        client.inventory.remove("CON-1", 100)
    assert refused.value.error_code == "INSUFFICIENT_STOCK"
    with pytest.raises(NotFoundError):
        client.inventory.add("NO-EXISTE", 1)
    with pytest.raises(ValueError):
        client.inventory.add("CON-1", 1, transaction="01")  # an output type
    moves = client.inventory.kardex(product.id)
    assert all(isinstance(m, KardexMove) for m in moves)
    assert [(m.quantity, m.balance) for m in moves] == [
        (Decimal("10"), Decimal("10")),
        (Decimal("5"), Decimal("15")),
        (Decimal("-2.5"), Decimal("12.5")),
    ]
    assert client.inventory.kardex(product.id, fresh=True).to_dataframe()["balance"].tolist() == [
        Decimal("10"),
        Decimal("15"),
        Decimal("12.5"),
    ]
    assert client.items.search("CON-1", fresh=True)[0].stock == Decimal("12.5")
    assert client.items.search("cuaderno").to_dataframe()["code"].tolist() == ["CON-1"]
    for family in ("items", "inventory"):
        assert recorder.of(family)[:3] == ["prepare", "validate", "issued"]
    assert isinstance(recorder.result("items"), Product)
    assert recorder.result("inventory") == "Ingreso registrado correctamente"
    with pytest.raises(NotFoundError):
        client.items.update(987654, code="X", description="x", sale_price=1)


def test_sale_note_built_with_sunat_totals_becomes_a_factura_once(client: Client, recorder: Recorder) -> None:
    product = client.items.create(code="CON-NV", description="Termo 1 l", sale_price=59, stock=5)
    customer = client.persons.create(
        number="20487654320", name="DISTRIBUIDORA LOS ANDES S.A.C.", identity_type="6"
    )
    [series] = client.sale_notes.series()
    assert series.number == "NV01"
    note = SaleNote(
        series_id=series.id,
        customer_id=customer.id,
        lines=[
            NoteLine(2, unit_price=59, item_id=product.id),
            NoteLine(1, unit_value="10.50", code="CON-SRV", description="Envío", unit="ZZ"),
        ],
    )
    assert note.totals().total == Decimal("130.39")  # 118.00 + 10.50 x 1.18 = 12.39
    ref = client.sale_notes.issue(note)
    assert isinstance(ref, SaleNoteRef) and ref.number.startswith("NV01-")
    assert client.sale_notes.download_pdf(ref.external_id).startswith(b"%PDF")
    assert client.sale_notes.download_pdf(ref.external_id, "ticket").startswith(b"%PDF")
    assert client.items.search("CON-NV", fresh=True)[0].stock == Decimal("3")
    factura = client.sale_notes.generate_cpe(ref.id, document_type="01")
    assert factura.state_type_id == "01" and factura.number.startswith("F001-")
    with pytest.raises(ConflictError):
        client.sale_notes.generate_cpe(ref.id, document_type="03")
    assert client.documents.send(factura.external_id).state_type_id == "05"
    assert recorder.of("sale_notes")[:3] == ["prepare", "validate", "issued"]
    with pytest.raises(NotFoundError):
        client.sale_notes.generate_cpe(987654)


def test_quotations_with_a_new_customer_list_and_frame(client: Client, recorder: Recorder) -> None:
    quotation = Quotation(
        customer=Customer.dni("45678912", "ANA TORRES"),
        lines=[NoteLine(3, unit_price="2.50", code="CON-Q", description="Lapicero azul")],
        description="Válida 7 días",
    )
    ref = client.quotations.create(quotation)
    assert isinstance(ref, QuotationRef) and ref.number.startswith("COT-") and ref.total == Decimal("7.50")
    rows = client.quotations.list(fresh=True)
    assert (
        rows[0].number == ref.number
        and rows[0].customer_name == "ANA TORRES"
        and rows[0].total == Decimal("7.50")
    )
    assert client.quotations.list("ANA").to_dataframe()["number"].tolist()[0] == ref.number
    assert client.quotations.download_pdf(ref.external_id).startswith(b"%PDF")
    assert isinstance(recorder.result("quotations"), QuotationRef)
    bad = dict(quotation.to_payload(), total=1)
    with pytest.raises(ValidationError) as refused:
        client.quotations.create(bad)
    assert refused.value.error_code == "TOTALS_MISMATCH"


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_lets_plugins_block_before_sending(shop: Shop, family: str) -> None:
    recorder = recorder_of(block=family)
    with shop.client(plugins=[recorder]) as client:
        assert [f.key for f in getattr(client, family).form_fields()] == [f"recorder.{family}"]
        calls = {
            "persons": lambda: client.persons.create(number="43000001", name="Bloqueada", identity_type="1"),
            "items": lambda: client.items.create(code="BLOCK-1", description="Bloqueado", sale_price=1),
            "inventory": lambda: client.inventory.add("BLOCK-1", 1),
            "sale_notes": lambda: client.sale_notes.issue(
                SaleNote(
                    series_id=1,
                    customer=Customer.dni("43000002", "X"),
                    lines=[NoteLine(1, unit_price=1, code="B", description="b")],
                )
            ),
            "quotations": lambda: client.quotations.create(
                Quotation(
                    customer=Customer.dni("43000002", "X"),
                    lines=[NoteLine(1, unit_price=1, code="B", description="b")],
                )
            ),
        }
        with pytest.raises(ValidationError) as refused:
            calls[family]()
        assert refused.value.error_code == "PLUGIN_VALIDATION" and refused.value.status is None
        assert recorder.of(family) == ["prepare", "validate"]  # never sent, never issued
        assert client.persons.list(search="Bloqueada") == []
        assert client.items.search("BLOCK-1") == []


def test_the_prepare_hook_changes_what_is_sent(client: Client) -> None:
    saved = client.persons.create(number="44000001", name="Con Código", identity_type="1")
    assert saved.id > 0  # the plugin added internal_code=PLUGIN; the service took the body


def test_builders_refuse_incomplete_lines() -> None:
    with pytest.raises(ValueError):
        NoteLine(1)
    with pytest.raises(ValueError):
        NoteLine(1, unit_price=2)  # neither item_id nor code and description
    with pytest.raises(ValueError):
        Quotation(lines=[NoteLine(1, unit_price=2, item_id=1)])  # no customer


def test_every_product_page_by_page(live: LiveService) -> None:
    """``items.list`` reads a catalogue of more than one page of 100, and says it has all of it."""
    shop = new_shop(live, "connector-catalogue")
    with shop.client() as client:
        for index in range(103):
            client.items.create(code=f"CAT-{index:03d}", description=f"Artículo {index:03d}", sale_price=1)
        assert len(client.items.search("", limit=100)) == 100
        products = client.items.list(fresh=True)
        assert products.complete and [p.code for p in products] == [f"CAT-{i:03d}" for i in range(103)]
        few = client.items.list("ARTICULO 10", fresh=True)  # accents and case aside
        assert few.complete and [p.code for p in few] == ["CAT-100", "CAT-101", "CAT-102"]


def test_every_product_of_a_tenant_that_does_not_page(standin: StandIn) -> None:
    """A real tenant ignores ``page`` and answers its first 100 again: ``every`` stops and says it may
    not have every product."""
    rows = [
        {
            "id": index,
            "item_id": index,
            "internal_id": f"R{index:03d}",
            "description": f"Real {index:03d}",
            "unit_type_id": "NIU",
            "currency_type_id": "PEN",
            "sale_unit_price": "1.00",
            "sale_affectation_igv_type_id": "10",
            "stock": "1",
        }
        for index in range(1, 101)
    ]
    for page in (1, 2):
        standin.on(
            "GET",
            f"/api/document/search-items?input=&limit=100&page={page}",
            Answer(200, {"success": True, "data": {"items": rows}}),
        )
    with Client(standin.root, "real-token", cache=False) as client:
        products = client.items.list()
    assert not products.complete and len(products) == 100
    assert standin.count("GET", "/api/document/search-items?input=&limit=100&page=2") == 1
