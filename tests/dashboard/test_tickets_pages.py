"""The Void, Summaries and Tickets pages in ``streamlit.testing.v1.AppTest`` against the live service.

Each test works on a tenant of its own (:mod:`tests.shops`): a summary declares every registered boleta
of a day of its tenant, and voiding changes states other tests read.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from connector import Client, IssueResult, wait_for_ticket
from connector.builders import Customer, Invoice, Line, Receipt
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.connector.standin import Answer, StandIn
from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_app import app, confirm, texts
from tests.shops import Shop, new_shop

PERSON = Customer.dni("46027862", "JUAN PEREZ QUISPE")
COMPANY = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.", address="Av. Lima 123", ubigeo="150101")


@pytest.fixture
def shop(live: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Shop:
    """A fresh tenant (tickets in process 0.5 s) as the dashboard's only tenant ``acme``."""
    shop = new_shop(live, "dash-tickets", authority_ticket_delay=0.5)
    path = write_tenants(
        tmp_path / "tenants.toml", shop.base_url, shop.token, name="TIENDA DE TICKETS S.A.C."
    )
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    return shop


@pytest.fixture
def client(shop: Shop) -> Iterator[Client]:
    with shop.client() as c:
        yield c


def factura(client: Client) -> IssueResult:
    result = client.documents.issue(
        Invoice(customer=COMPANY, lines=[Line("Inca Kola 250 ml", 2, unit_price=59)])
    )
    assert result.state_type_id == "05"
    return result


def boleta(client: Client) -> IssueResult:
    return client.documents.issue(Receipt(customer=PERSON, lines=[Line("Polo algodón", 1, unit_price=59)]))


def badges(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown if "badge[" in str(m.value))


def row_of(at: AppTest, number: str) -> dict[str, object]:
    table = at.dataframe[0].value
    return dict(table[table["number"] == number].iloc[0])


def test_void_a_factura_query_its_ticket_and_see_it_voided(shop: Shop, client: Client) -> None:
    kept, document = factura(client), factura(client)
    at = app()
    at.switch_page("views/void.py").run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Anular documentos"
    assert f"se pueden anular en los últimos 7 días: {peru_today():%d/%m} (2)" in texts(at.caption)
    options = at.multiselect(key="void_docs").options
    assert len(options) == 2 and any(document.number in option for option in options)
    at.multiselect(key="void_docs").set_value([document.external_id]).run()
    assert at.button(key="void_submit").label == "Anular 1 documento…"
    at.text_input(key="void_reason").set_value("Error en el RUC del cliente")
    at.button(key="void_submit").click().run()
    assert not at.exception, at.exception
    # nothing is sent yet: the page shows what would be voided and asks to confirm it
    assert not at.main.success
    review = texts(at.markdown)
    assert f"Vas a anular **1 documento** emitido el {peru_today():%d/%m/%Y}, por **S/ 118.00**" in review
    assert "no se puede deshacer" in texts(at.warning) and "Error en el RUC del cliente" in texts(at.warning)
    assert list(review_table(at)["Número"]) == [document.number]
    assert at.button(key="void_confirm").label == "Sí, anular 1 documento"
    assert at.button(key="void_confirm").proto.disabled  # until the box is checked
    assert client.documents.list(peru_today(), peru_today(), fresh=True)
    confirm(at, "void")
    assert not at.exception, at.exception
    assert "Comunicación de baja enviada: ticket" in texts(at.success), texts(at.error)
    assert f"{document.number} por anular" in texts(at.success)
    assert "badge[Enviado]" in badges(at)
    # the voided factura is no longer a candidate; the other one is
    assert at.multiselect(key="void_docs").value == []
    assert [o for o in at.multiselect(key="void_docs").options if document.number in o] == []

    at.button(key="void_ticket_query").click().run()  # waits while SUNAT processes (0.5 s)
    assert not at.exception, at.exception
    assert "aceptado por SUNAT" in texts(at.success), texts(at.info) + texts(at.error)
    assert "badge[Aceptado]" in badges(at)
    assert "La Comunicación de baja RA-" in texts(at.markdown)
    assert {b.label for b in at.get("download_button")} >= {"XML", "CDR"}
    assert not next(b for b in at.get("download_button") if b.label == "CDR").proto.disabled

    at.switch_page("views/tickets.py").run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert len(table) == 1
    row = table.iloc[0]
    assert row["kind"] == "Comunicación de baja" and row["state"] == ["Aceptado"]
    assert row["identifier"].startswith(f"RA-{peru_today():%Y%m%d}-") and row["documents"] == document.number
    assert row["code"] == "0"

    at.switch_page("views/documents.py").run()
    assert row_of(at, document.number)["state"] == ["Anulado"]
    assert row_of(at, kept.number)["state"] == ["Aceptado"]


def review_table(at: AppTest) -> Any:
    """The table of the documents an action would send (its review step)."""
    columns = ["Número", "Tipo", "Fecha", "Cliente", "Moneda", "Total"]
    return next(d.value for d in at.dataframe if list(d.value.columns) == columns)


def test_voiding_waits_for_a_confirmation_and_cancel_or_a_new_choice_sends_nothing(
    shop: Shop, client: Client
) -> None:
    """«Anular N documentos» only shows what would be voided (count, dates, amounts per currency); the
    box and «Sí, anular» send it. «Cancelar», or picking other documents, drops the review: nothing is
    sent. The list of documents offers no «Select all»."""
    first, second = factura(client), factura(client)
    at = app()
    at.switch_page("views/void.py").run()
    assert at.multiselect(key="void_docs").proto.select_all == 0  # no «Select all» (in English)
    at.multiselect(key="void_docs").set_value([first.external_id, second.external_id]).run()
    at.button(key="void_submit").click().run()
    review = texts(at.markdown)
    assert "Vas a anular **2 documentos**" in review and "**S/ 236.00**" in review
    at.button(key="void_cancel").click().run()
    assert not at.checkbox and not at.main.success
    at.button(key="void_submit").click().run()
    at.checkbox(key="void_sure").check().run()
    at.multiselect(key="void_docs").set_value([first.external_id]).run()  # another choice
    assert not at.checkbox and "Vas a anular" not in texts(at.markdown)
    states = {
        r.external_id: r.state_type_id for r in client.documents.list(peru_today(), peru_today(), fresh=True)
    }
    assert states[first.external_id] == states[second.external_id] == "05"  # nothing was sent


def test_void_page_needs_a_reason_reads_fresh_states_and_shows_service_errors(
    shop: Shop, client: Client
) -> None:
    document, other = factura(client), factura(client)
    at = app()
    at.switch_page("views/void.py").run()
    at.multiselect(key="void_docs").set_value([document.external_id]).run()
    at.text_input(key="void_reason").set_value("   ")
    at.button(key="void_submit").click().run()
    assert "Indica el motivo" in texts(at.error)
    # voided elsewhere meanwhile: the page reads the day again and no longer offers it
    ref = client.voided.void(peru_today(), [(document.external_id, "Duplicado")])
    assert wait_for_ticket(client.voided, external_id=ref.external_id, timeout=30).accepted
    at.run()
    assert at.multiselect(key="void_docs").value == []
    assert [o for o in at.multiselect(key="void_docs").options if document.number in o] == []
    # the authority is down: the service refuses, the page says why and nothing changes
    shop.set(authority_outage=True)
    try:
        at.multiselect(key="void_docs").set_value([other.external_id]).run()
        at.text_input(key="void_reason").set_value("Otra razón")
        at.button(key="void_submit").click().run()
        confirm(at, "void")
    finally:
        shop.set(authority_outage=False)
    assert not at.exception, at.exception
    assert "No se pudo enviar la anulación: Code: 0109" in texts(at.error), texts(at.error)
    assert not at.main.success
    assert at.multiselect(key="void_docs").value == [other.external_id]  # the form is kept


def test_void_boletas_with_a_summary(shop: Shop, client: Client) -> None:
    receipt = boleta(client)
    declared = client.summaries.declare(peru_today())
    assert wait_for_ticket(client.summaries, external_id=declared.external_id, timeout=30).accepted
    at = app()
    at.switch_page("views/void.py").run()
    at.segmented_control(key="void_kind").set_value("02").run()
    assert not at.expander  # no date format option for summaries
    at.multiselect(key="void_docs").set_value([receipt.external_id]).run()
    at.button(key="void_submit").click().run()
    confirm(at, "void")
    assert not at.exception, at.exception
    assert "Anulación de boletas enviada" in texts(at.success), texts(at.error)
    at.button(key="void_ticket_query").click().run()
    assert "aceptado por SUNAT" in texts(at.success)
    day = peru_today()
    (record,) = [
        r for r in client.documents.list(day, day, fresh=True) if r.external_id == receipt.external_id
    ]
    assert record.state_type_id == "11"


def test_summaries_page_declares_a_day(shop: Shop, client: Client) -> None:
    first, second = boleta(client), boleta(client)
    factura(client)  # not a boleta: not declared
    at = app()
    at.switch_page("views/summaries.py").run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Resúmenes diarios"
    # today's boletas are declared at the day's close: not a past day waiting (Inicio's rule)
    assert "Todas las boletas de días pasados están declaradas." in texts(at.success)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Boletas por declarar"] == "2" and metrics["Notas por declarar"] == "0"
    assert set(at.dataframe[0].value["number"]) == {first.number, second.number}
    assert at.button(key="summary_submit").label == f"Declarar 2 documentos del {peru_today():%d/%m/%Y}…"

    at.button(key="summary_submit").click().run()
    assert not at.exception, at.exception
    assert "Vas a declarar **2 documentos**" in texts(at.markdown)
    assert set(review_table(at)["Número"]) == {first.number, second.number}
    assert at.button(key="summary_confirm").proto.disabled
    confirm(at, "summary")
    assert not at.exception, at.exception
    assert "Resumen diario enviado: ticket" in texts(at.success), texts(at.error)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Boletas por declarar"] == "0" and metrics["Ya declaradas o anuladas"] == "2"
    assert at.button(key="summary_submit").proto.disabled
    assert "No hay boletas ni notas registradas (01) emitidas el" in texts(at.info)

    at.button(key="summary_ticket_query").click().run()
    assert "aceptado por SUNAT" in texts(at.success)
    assert "badge[Aceptado]" in badges(at)
    assert "El Resumen diario RC-" in texts(at.markdown)


def test_tickets_page_lists_queries_and_looks_up(shop: Shop, client: Client) -> None:
    shop.set(authority_ticket_delay=600)  # stays in process
    document = factura(client)
    slow = client.voided.void(peru_today(), [(document.external_id, "Error")])
    shop.set(authority_ticket_delay=0)
    boleta(client)
    declared = client.summaries.declare(peru_today())

    # the service lists both (sent elsewhere: this session knows only their count of documents)
    at = app()
    at.switch_page("views/tickets.py").run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert dict(zip(table["external_id"], table["kind"], strict=True)) == {
        slow.external_id: "Comunicación de baja",
        declared.external_id: "Resumen diario",
    }
    assert [s for s in table["state"]] == [["Enviado"], ["Enviado"]]
    assert set(table["documents"]) == {"1 documento"}
    assert at.selectbox(key="ticket_pick").value == declared.external_id  # the newest

    at.button(key="tickets_query_pending").click().run()
    assert not at.exception, at.exception
    assert "1 ticket(s) respondidos por SUNAT; 1 aún en proceso." in texts(at.info)
    table = at.dataframe[0].value
    states = dict(zip(table["external_id"], table["state"], strict=True))
    assert states == {slow.external_id: ["En proceso"], declared.external_id: ["Aceptado"]}
    assert "badge[Aceptado]" in badges(at)  # the picked one's box

    # look one up by its ticket; an unknown one (the field speaks the accountant's words, not the API's)
    assert "external_id" not in at.text_input(key="lookup_handle").label
    at.radio(key="lookup_family").set_value("voided")
    at.text_input(key="lookup_handle").set_value(slow.ticket)
    next(b for b in at.button if b.label == "Buscar").click().run()
    assert "aún procesa el ticket" in texts(at.info)
    assert at.selectbox(key="ticket_pick").value == slow.external_id
    at.text_input(key="lookup_handle").set_value("00000000-0000-4000-8000-000000000000")
    next(b for b in at.button if b.label == "Buscar").click().run()
    assert "No se encontró" in texts(at.error)

    # a range without any
    long_ago = peru_today() - timedelta(days=400)
    at.date_input(key="tickets_range").set_value((long_ago, long_ago + timedelta(days=3))).run()
    assert "No hay resúmenes ni comunicaciones de baja generados" in texts(at.info)


def test_tickets_page_of_a_tenant_without_lists(
    standin: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real tenants have no list of summaries: the page shows the session's own and can look one up."""
    standin.on("GET", "/api/documents/lists", Answer(200, {"data": []}))
    standin.on(
        "POST",
        "/api/voided/status",
        Answer(500, {"success": False, "message": "Code: 98; Description: El procesamiento no ha terminado"}),
    )
    path = write_tenants(tmp_path / "tenants.toml", standin.root, "token-0123456789abcdefghij")
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    at = app()
    at.switch_page("views/tickets.py").run()
    assert not at.exception, at.exception
    assert "Esta empresa no lista sus resúmenes" in texts(at.info)
    assert "Esta sesión aún no envió ni buscó ninguno" in texts(at.caption)  # not "no hay" in the range
    assert "No hay resúmenes" not in texts(at.info)
    at.radio(key="lookup_family").set_value("voided")
    at.text_input(key="lookup_handle").set_value("1700000000000123")
    next(b for b in at.button if b.label == "Buscar").click().run()
    assert not at.exception, at.exception
    assert "aún procesa el ticket" in texts(at.info)
    # the answer did not say which summary it is: nothing is added
    assert "búscalo de nuevo cuando SUNAT responda" in texts(at.caption)
    assert not at.dataframe


def test_documents_page_shows_declared_voiding_and_voided(shop: Shop, client: Client) -> None:
    voided, voiding = factura(client), factura(client)
    ref = client.voided.void(peru_today(), [(voided.external_id, "Error")])
    assert wait_for_ticket(client.voided, external_id=ref.external_id, timeout=30).accepted
    shop.set(authority_ticket_delay=600)  # the next tickets stay in process
    declared = boleta(client)
    client.summaries.declare(peru_today())
    client.voided.void(peru_today(), [(voiding.external_id, "Error")])

    at = app()
    assert not at.exception, at.exception
    assert row_of(at, declared.number)["state"] == ["Enviado"]
    assert row_of(at, voiding.number)["state"] == ["Por anular"]
    assert row_of(at, voided.number)["state"] == ["Anulado"]
    states = at.multiselect(key="f_states")
    assert states.options == ["Enviado", "Anulado", "Por anular"]  # names, never the raw codes
    at.multiselect(key="f_states").set_value(["13"]).run()
    assert list(at.dataframe[0].value["number"]) == [voiding.number]
