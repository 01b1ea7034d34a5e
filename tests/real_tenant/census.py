"""Every connector call a user can make, run once against each stand-in; prints what each did: the table
of ``docs/real_tenants.md`` comes from it (``python -m tests.real_tenant.census``).

An outcome is ``ok`` (the call worked and its answer is right), ``no ofrece`` (a
``NotOfferedError``: one sentence says what the tenant lacks) or ``FALLA`` with the exception or the
wrong answer. It runs on whatever ``connector`` is importable, so the same census measures a branch
before and after a change (``tests/real_tenant/test_connector_calls.py`` holds the calls to it)."""

from __future__ import annotations

import datetime as dt
import sys
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from analysis.register import sales_register
from connector import Client, wait_for_ticket
from connector.builders import CreditNote, Customer, Invoice, Line, Receipt
from connector.consult import check_document
from connector.quotations import Quotation
from connector.sale_notes import SaleNote
from connector.sheets import NoteLine
from sunat.calendar import peru_today
from sunat.identity import ruc_check_digit
from tests.real_tenant.seed import sale_note_body, seed
from tests.real_tenant.server import StandIn, running, stand_in
from tests.real_tenant.variants import VARIANTS
from tests.samples.dispatches import carrier_body, dispatch_body
from tests.samples.withholding import perception, retention

Call = Callable[[Client, StandIn, dict[str, Any]], None]
TODAY = peru_today()


def _ruc() -> str:
    first10 = "20" + str(uuid.uuid4().int % 10**8).zfill(8)
    return first10 + str(ruc_check_digit(first10))


def _invoice(**changes: Any) -> Invoice:
    return Invoice(
        customer=Customer.ruc("20100070970", "SUPERMERCADOS PERUANOS S.A."),
        lines=[Line("Arroz Costeño 5 kg", 2, unit_price="24.90")],
        **changes,
    )


def _receipt() -> Receipt:
    return Receipt(
        customer=Customer.dni("46027862", "JUAN PEREZ QUISPE"), lines=[Line("Aceite", 1, unit_price="11.50")]
    )


def _check(condition: bool, wrong: str) -> None:
    if not condition:
        raise AssertionError(wrong)


def _issue(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    ctx["invoice"] = c.documents.issue(_invoice())
    _check(ctx["invoice"].accepted, "not accepted")


def _find(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    series, number = ctx["invoice"].number.split("-")
    found = c.documents.find(series, int(number))
    _check(found is not None and found.total == Decimal("49.80"), "not found or wrong total")


def _list(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    rows = c.documents.list(TODAY - dt.timedelta(days=30), TODAY)
    _check(len(rows) == len(s.tenant.documents) and all(r.date_of_issue for r in rows), "rows or dates wrong")
    _check(
        sum((r.total for r in rows), Decimal(0))
        == sum((d.totals["total"] for d in s.tenant.documents), Decimal(0)),
        "totals",
    )


def _send(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    unsent = c.documents.issue(_invoice(send=False))
    _check(c.documents.send(unsent.external_id).state_type_id == "05", "not sent")
    ctx["unsent"] = unsent


def _cdr_of_boleta(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    from connector import NotFoundError

    boleta = c.documents.issue(_receipt())
    ctx["boleta"] = boleta
    try:
        c.documents.download_cdr(boleta.external_id)
    except NotFoundError:
        return
    raise AssertionError("a boleta has no CDR: NotFoundError expected")


def _check_document(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    record = c.documents.find("F001", int(ctx["invoice"].number.split("-")[1]))
    assert record is not None
    answer = check_document(c, record)
    _check(answer.consistent, answer.message)


def _register(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    note = c.documents.issue(
        CreditNote(
            customer=Customer.ruc("20100070970", "SUPERMERCADOS PERUANOS S.A."),
            lines=[Line("Arroz Costeño 5 kg", 1, unit_price="24.90")],
            affected_external_id=ctx["invoice"].external_id,
            note_type="01",
            reason="Anulación",
        )
    )
    register = sales_register(c, TODAY)
    entry = next(e for e in register.entries if f"{e.series}-{e.number}" == note.number)
    _check(
        f"{entry.affected_series}-{entry.affected_number}" == ctx["invoice"].number,
        "note without its document",
    )


def _declare(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    ticket = c.summaries.declare(TODAY)
    _check(
        wait_for_ticket(c.summaries, external_id=ticket.external_id, timeout=10, initial=0.05).accepted,
        "ticket",
    )


def _void_boleta(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    ticket = c.summaries.void(TODAY, [(ctx["boleta"].external_id, "Error")])
    _check(
        wait_for_ticket(c.summaries, external_id=ticket.external_id, timeout=10, initial=0.05).accepted,
        "ticket",
    )


def _void_factura(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    ticket = c.voided.void(TODAY, [(ctx["unsent"].external_id, "Error en el RUC")])
    _check(
        wait_for_ticket(c.voided, external_id=ticket.external_id, timeout=10, initial=0.05).accepted, "ticket"
    )


def _series_id(s: StandIn) -> int:
    return s.tenant.series["80"][0][0]


def _tenant_note(s: StandIn) -> Any:
    """A sale note made by the stand-in's own code, so each call below stands on its own."""
    s.tenant.store_sale_note(sale_note_body(TODAY, s.tenant.persons[0].id, s.tenant.items[0].id), "")
    return s.tenant.sale_notes[-1]


def _series(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    _check(c.sale_notes.series()[0].id == _series_id(s), "series")


def _ids(c: Client) -> tuple[int, int]:
    code = f"C-{uuid.uuid4().hex[:5]}"
    product = c.items.create(code=code, description=f"Producto {code}", sale_price="24.90", stock=9)
    customer = c.persons.create(number=_ruc(), name=f"CLIENTE {code}", identity_type="6")
    return product.id, customer.id


def _note_by_ids(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    product, customer = _ids(c)
    note = SaleNote(
        series_id=_series_id(s), customer_id=customer, lines=[NoteLine(1, unit_price=10, item_id=product)]
    )
    c.sale_notes.issue(note)


def _note_by_code(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    code = f"N-{uuid.uuid4().hex[:5]}"
    c.sale_notes.issue(
        SaleNote(
            series_id=_series_id(s),
            customer=Customer.ruc(_ruc(), f"NUEVO {code}", ubigeo="150101"),
            lines=[NoteLine(1, unit_price=10, code=code, description=f"Producto {code}")],
        )
    )


def _note_list(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    notes = c.sale_notes.list(start=TODAY - dt.timedelta(days=30), end=TODAY)
    everything = {n.number_full for n in s.tenant.sale_notes}
    if getattr(notes, "complete", True) is False:
        _check("notas de venta" in notes.note, "incomplete without saying so")  # type: ignore[attr-defined]
    else:
        _check(
            everything <= {n.number for n in notes}, f"{len(notes)} of {len(everything)} notes, said complete"
        )


def _generate(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    note = _tenant_note(s)
    _check(c.sale_notes.generate_cpe(note.id, document_type="01").number.startswith("F"), "no factura")


def _generate_twice(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    from connector import ConflictError

    note = _tenant_note(s)
    made = {
        "fecha_de_emision": TODAY.isoformat(),
        "hora_de_emision": "10:00:00",
        "fecha_de_vencimiento": TODAY.isoformat(),
    }
    s.tenant.generate_cpe(
        str(note.id), {"codigo_tipo_documento": "01", "serie_documento": "F001", **made}, ""
    )
    try:
        c.sale_notes.generate_cpe(note.id, document_type="01")
    except ConflictError:
        return
    raise AssertionError("a second document of the same note")


def _note_pdf(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    _check(c.sale_notes.download_pdf(_tenant_note(s).external_id).startswith(b"%PDF"), "no PDF")


def _quotation(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    product, customer = _ids(c)
    c.quotations.create(Quotation(customer_id=customer, lines=[NoteLine(1, unit_price=10, item_id=product)]))


def _quotations_list(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    _check(s.tenant.quotations[-1].number_full in {q.number for q in c.quotations.list()}, "not listed")


def _person_records(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    names = {p.name for p in c.persons.list("customers", "NORTE")}
    _check(names == {"DISTRIBUIDORA NORTE S.A.C."}, f"customers named NORTE: {sorted(names)}")


def _person_pages(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    tag = uuid.uuid4().hex[:5].upper()
    made = {
        c.persons.create(number=f"4{i:07d}", name=f"PAGINA {tag} {i:02d}", identity_type="1").id
        for i in range(23)
    }
    _check({p.id for p in c.persons.list("customers", f"PAGINA {tag}")} == made, "pages lost the search")


def _person_edit(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    number = _ruc()
    person = c.persons.create(number=number, name=f"EDITABLE {number}", identity_type="6")
    c.persons.update(person.id, number=number, name=f"EDITADO {number}", identity_type="6")
    _check([p.number for p in s.tenant.persons].count(number) == 1, "the edit registered a second person")


def _items(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    code = f"I-{uuid.uuid4().hex[:5]}"
    product = c.items.create(code=code, description=f"Producto {code}", sale_price="1250.00", stock=3)
    ctx["product"] = product
    _check(
        c.items.update(product.id, code=code, description="Editado", sale_price="1300").sale_price
        == Decimal(1300),
        "price",
    )
    _check([p.code for p in c.items.search(code)] == [code], "search")


def _inventory(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    c.inventory.add(ctx["product"].code, 2)
    c.inventory.remove(ctx["product"].code, 1)


def _kardex(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    c.inventory.kardex(ctx["product"].id)


def _guide(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    ctx["guide"] = c.dispatches.issue(dispatch_body())


def _guide_send(c: Client, s: StandIn, ctx: dict[str, Any]) -> None:
    c.dispatches.send(ctx["guide"].external_id)
    _check(
        wait_for_ticket(
            c.dispatches, external_id=ctx["guide"].external_id, timeout=10, initial=0.05
        ).accepted,
        "ticket",
    )


CALLS: list[tuple[str, Call]] = [
    ("client.ping()", lambda c, s, ctx: _check(c.ping().ok, "ping")),
    ("documents.issue(Invoice)", _issue),
    ("documents.find(serie, número)", _find),
    ("documents.latest()", lambda c, s, ctx: _check(len(c.documents.latest()) > 0, "empty")),
    ("documents.list(inicio, fin)", _list),
    ("documents.issue(send=False) + send()", _send),
    (
        "documents.update_status()",
        lambda c, s, ctx: c.documents.update_status(ctx["unsent"].external_id, "05"),
    ),
    (
        "documents.download_xml/pdf/cdr()",
        lambda c, s, ctx: (
            [
                c.documents.download_xml(ctx["invoice"].external_id),
                c.documents.download_pdf(ctx["invoice"].external_id),
                c.documents.download_cdr(ctx["invoice"].external_id),
            ]
            and None
        ),
    ),
    ("documents.download_cdr() sin CDR", _cdr_of_boleta),
    ("consult.check_document()", _check_document),
    ("analysis.register.sales_register(mes) con notas", _register),
    ("summaries.declare() + status()", _declare),
    ("summaries.void() + status()", _void_boleta),
    ("voided.void() + status()", _void_factura),
    ("summaries.latest()/list()", lambda c, s, ctx: c.summaries.list(TODAY, TODAY) and None),
    ("voided.latest()/list()", lambda c, s, ctx: c.voided.list(TODAY, TODAY) and None),
    ("sale_notes.series()", _series),
    ("sale_notes.issue(SaleNote por ids)", _note_by_ids),
    ("sale_notes.issue(SaleNote por código y cliente)", _note_by_code),
    ("sale_notes.list(inicio, fin)", _note_list),
    ("sale_notes.generate_cpe()", _generate),
    ("sale_notes.generate_cpe() otra vez", _generate_twice),
    ("sale_notes.download_pdf()", _note_pdf),
    ("quotations.create(Quotation)", _quotation),
    ("quotations.list()", _quotations_list),
    (
        "quotations.download_pdf()",
        lambda c, s, ctx: c.quotations.download_pdf(s.tenant.quotations[0].external_id) and None,
    ),
    (
        "persons.create() nuevo",
        lambda c, s, ctx: (
            c.persons.create(number=_ruc(), name=f"NUEVO {uuid.uuid4().hex[:5]}", identity_type="6") and None
        ),
    ),
    ("persons.list(tipo, búsqueda)", _person_records),
    ("persons.list() de varias páginas", _person_pages),
    ("persons.update(person_id, ...) edición", _person_edit),
    ("items.create/update/search()", _items),
    ("items.list()", lambda c, s, ctx: c.items.list() and None),
    ("inventory.add/remove()", _inventory),
    ("inventory.kardex()", _kardex),
    ("dispatches.issue(09)", _guide),
    ("dispatches.send() + status()", _guide_send),
    ("dispatches.issue(31)", lambda c, s, ctx: c.dispatches.issue(carrier_body()) and None),
    ("dispatches.list()", lambda c, s, ctx: c.dispatches.list(TODAY, TODAY) and None),
    (
        "retentions/perceptions.issue()",
        lambda c, s, ctx: [c.retentions.issue(retention()), c.perceptions.issue(perception())] and None,
    ),
    ("retentions/perceptions.latest()/list()", lambda c, s, ctx: c.retentions.latest() and None),
]


def outcome(call: Call, client: Client, standin: StandIn, ctx: dict[str, Any]) -> str:
    try:
        call(client, standin, ctx)
    except Exception as exc:  # noqa: BLE001 - a census records every failure
        if type(exc).__name__ == "NotOfferedError":
            return "no ofrece"
        return f"FALLA ({type(exc).__name__}: {str(exc).splitlines()[0][:70]})"
    return "ok"


def census() -> dict[str, dict[str, str]]:
    """``{call: {variant: outcome}}``."""
    table: dict[str, dict[str, str]] = {name: {} for name, _ in CALLS}
    for variant in sorted(VARIANTS):
        standin = stand_in(VARIANTS[variant], limit=100_000)
        seed(standin.tenant)
        standin.tenant.series["09"].append((99, "T001"))
        ctx: dict[str, Any] = {}
        with running(standin), Client(standin.root, standin.token, cache=False) as client:
            for name, call in CALLS:
                table[name][variant] = outcome(call, client, standin, ctx)
    return table


def main() -> None:
    table = census()
    variants = sorted(VARIANTS)
    print("| llamada | " + " | ".join(variants) + " |")
    print("|---|" + "---|" * len(variants))
    for name, row in table.items():
        print(f"| `{name}` | " + " | ".join(row[v] for v in variants) + " |")
    failed = {v: sum(row[v].startswith("FALLA") for row in table.values()) for v in variants}
    print(
        f"\n{len(table)} llamadas; fallan: " + ", ".join(f"{v} {n}" for v, n in failed.items()),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
