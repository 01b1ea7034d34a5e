"""The dashboard in ``streamlit.testing.v1.AppTest`` against the live service (real HTTP on loopback)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import APP_PATH, charts, issuing
from sunat.calendar import peru_today
from tests.dashboard.conftest import Issued
from tests.samples.bodies import invoice_body

TIMEOUT = 60


def app(page: str | None = "views/documents.py") -> AppTest:
    """The dashboard's entry script, run once, then on ``page`` (``None``: the default page, Inicio)."""
    at = AppTest.from_file(str(APP_PATH), default_timeout=TIMEOUT)
    at.run()
    return at.switch_page(page).run() if page and not at.exception else at


def texts(elements: Any) -> str:
    """All the text of a list of AppTest elements (alerts, markdown ...), joined."""
    return "\n".join(str(e.value) for e in elements)


def confirm(at: AppTest, key: str) -> None:
    """The second step of an irreversible action: check the box, then press «Sí, ...»."""
    at.checkbox(key=f"{key}_sure").check().run()
    assert not at.button(key=f"{key}_confirm").proto.disabled
    at.button(key=f"{key}_confirm").click().run()


def walk(block: Any) -> Iterator[Any]:
    """Every node under an AppTest block, depth first."""
    for child in getattr(block, "children", {}).values():
        yield child
        yield from walk(child)


def block_with(at: AppTest, widget_key: str) -> Any:
    """The innermost block (column) that holds the widget ``widget_key``."""
    found = None
    for node in walk(at.main):
        if hasattr(node, "children") and any(
            getattr(child, "key", None) == widget_key for child in node.children.values()
        ):
            found = node
    assert found is not None, widget_key
    return found


def chart_figures(at: AppTest) -> list[dict[str, Any]]:
    """The figures (plotly JSON, as the browser gets them) of the page's charts (:func:`charts.show`):
    each one an element of our component, drawn by its module, in our template; no ``st.plotly_chart``
    left (it loads the whole plotly.js)."""
    assert not at.get("plotly_chart")
    elements = at.get("bidi_component")
    assert {(e.proto.component_name, e.proto.js_source_path) for e in elements} <= {(charts.NAME, "chart.js")}
    figures = [json.loads(json.loads(element.proto.json)) for element in elements]
    assert all(figure["layout"]["template"] == charts.TEMPLATE.to_plotly_json() for figure in figures)
    return figures


def test_documents_page_lists_the_range_with_kpis_and_charts(tenants: Path, issued: Issued) -> None:
    at = app()
    assert not at.exception, at.exception
    assert "Conectado" in texts(at.sidebar.success)
    assert at.sidebar.selectbox(key="tenant").value == "acme"
    assert at.title[0].value == "Documentos"
    (picker,) = at.date_input
    start, end = picker.value
    assert end == peru_today() and (end - start).days == 29

    table = at.dataframe[0].value
    numbers = set(table["number"])
    assert set(issued.numbers) <= numbers
    assert {"Registrado", "Aceptado"} <= {labels[0] for labels in table["state"]}

    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Documentos"].replace(",", "")) >= len(issued.numbers)
    assert metrics["Importe total"].startswith("S/ ") and metrics["Valor de venta (sin IGV)"].startswith(
        "S/ "
    )

    figures = chart_figures(at)
    assert len(figures) == 3
    daily = figures[0]
    assert {trace["name"] for trace in daily["data"]} >= {"Factura", "Boleta"}
    assert "Valor de venta por día" in daily["layout"]["title"]["text"]
    assert not any("Cargando" in json.dumps(spec) for spec in figures)  # the loading frames were replaced


def test_documents_page_keeps_its_range_when_the_analyst_comes_back(tenants: Path, issued: Issued) -> None:
    """Streamlit forgets a widget's value when its page is left: back on Documentos from Buscar, the
    range picked is still the one shown (it was the last 30 days again), and its documents listed."""
    at = app()
    today = peru_today()
    picked = (today - timedelta(days=3), today)
    at.date_input(key="docs_range").set_value(picked).run()
    at.switch_page("views/search.py").run()
    assert not chart_figures(at)
    at.switch_page("views/documents.py").run()
    assert not at.exception, at.exception
    assert tuple(at.date_input(key="docs_range").value) == picked
    assert set(issued.numbers) <= set(at.dataframe[0].value["number"])  # issued today, in the range
    assert len(chart_figures(at)) == 3


def test_a_range_shown_is_drawn_at_once_next_time_until_a_change(
    stored_tenants: Path, issued: Issued
) -> None:
    """Documentos on a local store draws loading frames only for a range not read yet or a session that
    drew no chart yet: a range this process has shown, in a session that drew it, is drawn at once
    (plotly drew each chart twice); after a change made in the session (a status, a send) the range is
    read again, with its frames."""
    from dashboard import session

    at = app()
    start, end = at.date_input(key="docs_range").value
    key = at.session_state["_active"].key
    shown = session._SYNCED.get((key, start, end))
    assert shown is not None and shown.memoised(("count",))  # the page's COUNT
    assert at.session_state["_documents_charts_drawn"]  # this session's browser has plotly's code
    at.session_state["_documents_stale"] = True  # as invalidate_documents leaves it
    at.run()
    assert not at.exception, at.exception
    assert "_documents_stale" not in at.session_state  # read again
    assert len(chart_figures(at)) == 3


def test_documents_page_filters_and_range(tenants: Path, issued: Issued) -> None:
    at = app()
    at.multiselect(key="f_types").set_value(["03"]).run()
    table = at.dataframe[0].value
    assert set(table["document_type"]) == {"Boleta"}
    assert issued.receipt.number in set(table["number"])

    at.multiselect(key="f_types").set_value([])
    at.text_input(key="f_customer").set_value(issued.customer.lower()).run()
    assert list(at.dataframe[0].value["number"]) == [issued.unsent.number]

    # a range without documents
    long_ago = peru_today() - timedelta(days=400)
    at.date_input(key="docs_range").set_value((long_ago, long_ago + timedelta(days=5))).run()
    assert not at.exception
    assert "No hay documentos" in texts(at.info)
    assert not chart_figures(at)


def test_documents_page_selects_sends_and_changes_state(tenants: Path, issued: Issued) -> None:
    at = app()
    table = at.dataframe[0].value
    position = list(table["number"]).index(issued.unsent.number)
    at.session_state["docs_table"] = {"selection": {"rows": [position], "columns": [], "cells": []}}
    at.run()
    assert any(issued.unsent.number in str(m.value) for m in at.markdown)
    assert {b.label for b in at.get("download_button")} >= {"XML", "PDF", "CDR", "CSV", "Excel"}

    at.button(key="send").click().run()
    assert not at.exception, at.exception
    assert f"{issued.unsent.number} enviado" in texts(at.success)
    table = at.dataframe[0].value
    sent = table[table["number"] == issued.unsent.number].iloc[0]
    assert sent["state"] == ["Aceptado"] and bool(sent["has_cdr"])

    position = list(table["number"]).index(issued.unsent.number)
    at.session_state["docs_table"] = {"selection": {"rows": [position], "columns": [], "cells": []}}
    at.run()
    # SUNAT accepted it: «Enviar a SUNAT» is no longer offered, and says why
    assert at.button(key="send").disabled and "ya respondió" in str(at.button(key="send").help)
    at.selectbox(key="new_state").set_value("13").run()
    assert at.selectbox(key="new_state").value == "13" and "13" not in at.selectbox(key="new_state").options
    # no reason, no change: the button waits for one
    assert at.button(key="update_status").disabled
    at.text_input(key="status_reason").set_value("  Baja pedida por el cliente  ").run()
    assert not at.button(key="update_status").disabled
    at.button(key="update_status").click().run()
    # it only says what it will do (in the service only, nothing told to SUNAT) until confirmed
    assert not at.main.success and "no se informa nada a SUNAT" in texts(at.warning)
    assert "Motivo: «Baja pedida por el cliente»" in texts(at.warning)
    at.checkbox(key="status_sure").check().run()
    at.button(key="status_confirm").click().run()
    assert "estado cambiado a Por anular" in texts(at.success)
    table = at.dataframe[0].value
    assert table[table["number"] == issued.unsent.number].iloc[0]["state"] == ["Por anular"]
    # the figures name it, and its page shows the record: who, when, from, to, why
    assert f"{issued.unsent.number} (Aceptado → Por anular, «Baja pedida por el cliente»)" in texts(
        at.caption
    )
    position = list(table["number"]).index(issued.unsent.number)
    at.session_state["docs_table"] = {"selection": {"rows": [position], "columns": [], "cells": []}}
    at.run()
    assert "Estado cambiado a mano 1 vez" in texts(at.warning)
    [record] = [d.value for d in at.dataframe if "Motivo" in d.value.columns]
    assert list(record.iloc[0][["Usuario", "De", "A", "Motivo"]]) == [
        "Administrador",
        "Aceptado",
        "Por anular",
        "Baja pedida por el cliente",
    ]
    assert re.fullmatch(r"\d\d/\d\d/\d{4} \d\d:\d\d", record.iloc[0]["Fecha (Lima)"])


def test_wrong_token_says_so(wrong_token: Path) -> None:
    at = app()
    assert not at.exception
    sidebar = texts(at.sidebar.error)
    assert "token no es válido" in sidebar and "401" in sidebar
    assert "Sin conexión" in texts(at.main.error)
    assert not at.dataframe


def test_service_down_says_so(service_down: Path) -> None:
    at = app()
    assert not at.exception
    assert "no responde" in texts(at.sidebar.error)
    assert "Sin conexión" in texts(at.main.error)


def test_missing_tenants_file_explains(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTURADOR_TENANTS", str(tmp_path / "nope.toml"))
    at = app()
    assert not at.exception
    assert "No se encontró el archivo de empresas" in texts(at.sidebar.error)
    assert f"se buscó en `{tmp_path / 'nope.toml'}`" in texts(at.sidebar.error)  # where it looked
    assert "[tenants.demo]" in at.sidebar.code[0].value


def fill_invoice(at: AppTest, customer: str, *, identity: str = "6", number: str = "20601030013") -> AppTest:
    """Fill the Issue page's customer and one item (2 x 59.00 with IGV)."""
    at.selectbox(key="cust_identity_01").set_value(identity)
    at.text_input(key="cust_number").set_value(number)
    at.text_input(key="cust_name").set_value(customer)
    at.session_state["issue_items"] = {
        "edited_rows": {0: {"descripcion": "Inca Kola 250 ml", "cantidad": 2.0, "precio": "59"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    return at.run()


def test_issue_page_issues_an_invoice(tenants: Path) -> None:
    at = app()
    at.switch_page("views/issue.py").run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Emitir comprobante"
    assert "Detracción" in {e.label for e in at.expander} and "Pago al crédito" in {
        e.label for e in at.expander
    }

    fill_invoice(at, "EMPRESA DEL FORMULARIO S.A.C.")
    assert not at.exception, at.exception
    totals = {m.label: m.value for m in at.metric}
    assert totals["Op. gravadas"] == "S/ 100.00"
    assert totals["IGV"] == "S/ 18.00"
    assert totals["Total"] == "S/ 118.00"
    preview = at.json[0].value
    payload = json.loads(preview) if isinstance(preview, str) else preview
    assert payload["totales"]["total_venta"] == 118.0
    assert payload["datos_del_cliente_o_receptor"]["apellidos_y_nombres_o_razon_social"] == (
        "EMPRESA DEL FORMULARIO S.A.C."
    )

    at.button(key="issue_submit").click().run()
    assert not at.exception, at.exception
    assert not at.error, texts(at.error)
    message = texts(at.success)
    assert "emitida" in message and "F001-" in message
    number = next(m.value for m in at.markdown if str(m.value).startswith("### F001-"))[4:]
    assert any("badge[Aceptado]" in str(m.value) for m in at.markdown), "the state is shown as a badge"
    assert "Respuesta de SUNAT" in texts(at.markdown)
    assert at.image, "the QR image is shown"

    at.switch_page("views/documents.py").run()
    assert number in set(at.dataframe[0].value["number"])


def test_a_price_the_form_cannot_take_is_an_error_and_nothing_is_issued(tenants: Path) -> None:
    """Issue 31: «−50» (a Unicode minus) became 50 or 5.00 and a factura for S/ 5.00 was issued."""
    at = app()
    at.switch_page("views/issue.py").run()
    fill_invoice(at, "EMPRESA DEL SIGNO S.A.C.")
    for typed in ("−50", "-50", "5,00"):
        at.session_state["issue_items"] = {
            "edited_rows": {0: {"descripcion": "Servicio", "cantidad": 1.0, "precio": typed}},
            "added_rows": [],
            "deleted_rows": [],
        }
        at.run()
        assert not at.metric, "no totals for a price the form cannot read"
        at.button(key="issue_submit").click().run()
        assert not at.exception, at.exception
        assert not at.main.success, "nothing was issued"
        assert f"Ítem 1 · Precio unitario: «{typed}»" in texts(at.error)
    # what is typed is what is signed: the review shows the amounts the document will carry
    at.session_state["issue_items"] = {
        "edited_rows": {0: {"descripcion": "Servicio", "cantidad": 3.0, "precio": "1,250.50"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert not at.error, texts(at.error)
    [review] = [d.value for d in at.dataframe if "Precio unitario" in d.value.columns]
    assert list(review.iloc[0][["Cantidad", "Precio unitario", "Total"]]) == ["3.0", "1250.50", "3,751.50"]
    assert {m.label: m.value for m in at.metric}["Total"] == "S/ 3,751.50"


def test_issue_page_shows_service_errors_next_to_their_fields(tenants: Path) -> None:
    at = app()
    at.switch_page("views/issue.py").run()
    # a factura with operation 0101 to a DNI: the service refuses the identity type
    fill_invoice(at, "Persona Natural", identity="1", number="46027862")
    at.button(key="issue_submit").click().run()
    assert not at.exception, at.exception
    assert not at.main.success
    # the message is in the column of the identity type selectbox, right under it
    column = block_with(at, "cust_identity_01")
    messages = [str(node.value) for node in walk(column) if type(node).__name__ == "Error"]
    assert len(messages) == 1 and "DNI" in messages[0], texts(at.error)
    assert "revisa los campos marcados" in texts(at.main.error)  # also said next to the button

    # fixing the field hides the error
    at.selectbox(key="cust_identity_01").set_value("6")
    at.text_input(key="cust_number").set_value("20601030013").run()
    assert not at.error, texts(at.error)


def test_issue_page_checks_the_form_before_sending(tenants: Path) -> None:
    at = app()
    at.switch_page("views/issue.py").run()
    assert not at.error  # nothing is shown as wrong before a first attempt
    at.button(key="issue_submit").click().run()
    errors = texts(at.error)
    assert "nombre o la razón social" in errors and "al menos un ítem" in errors
    assert not at.main.success


def test_issue_page_routes_plugin_errors_to_their_section(tenants: Path) -> None:
    at = app()
    at.switch_page("views/issue.py").run()
    fill_invoice(at, "EMPRESA DEL FORMULARIO S.A.C.")
    # instalments that do not add up to the total: the instalments plugin refuses before sending
    at.session_state["plugin:instalments.rows"] = {
        "edited_rows": {},
        "added_rows": [{"date": (peru_today() + timedelta(days=30)).isoformat(), "amount": 50.0}],
        "deleted_rows": [],
    }
    at.run()
    at.button(key="issue_submit").click().run()
    assert not at.exception, at.exception
    assert not at.main.success
    credit = next(e for e in at.expander if e.label == "Pago al crédito")
    assert any("cuota" in str(e.value).lower() for e in credit.error), texts(at.error)


def test_issue_page_detraction_section_reaches_the_service(tenants: Path) -> None:
    at = app()
    at.switch_page("views/issue.py").run()
    fill_invoice(at, "EMPRESA CON DETRACCION S.A.C.")
    at.session_state["issue_items"] = {
        "edited_rows": {0: {"descripcion": "Mantenimiento de equipos", "cantidad": 1.0, "precio": 2360.0}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.selectbox(key="plugin:detraction.code").set_value("037")
    at.text_input(key="plugin:detraction.account").set_value("00-000-123456")
    at.run()
    payload = at.json[0].value
    payload = json.loads(payload) if isinstance(payload, str) else payload
    assert payload["codigo_tipo_operacion"] == "1001"
    assert payload["detraccion"]["monto"] == 283.2  # 12 % of 2,360.00
    at.button(key="issue_submit").click().run()
    assert not at.exception, at.exception
    assert "emitida" in texts(at.main.success), texts(at.main.error)
    assert "código `0`" in texts(at.markdown)


def test_issue_page_boleta_and_credit_note(tenants: Path, issued: Issued) -> None:
    at = app()
    at.switch_page("views/issue.py").run()
    at.button_group(key="issue_kind").set_value("03").run()
    assert at.text_input(key="issue_series_03").value == "B001"
    assert at.selectbox(key="cust_identity_03").value == "1"  # DNI for boletas
    at.text_input(key="cust_number").set_value("46027862")
    at.text_input(key="cust_name").set_value("María Quispe")
    at.session_state["issue_items"] = {
        "edited_rows": {0: {"descripcion": "Polo algodón", "cantidad": 2.0, "precio": 35.0}},
        "added_rows": [
            {
                "descripcion": "Bolsa",
                "cantidad": 1.0,
                "precio": 0.1,
                "afectacion": "10",
                "unidad": "NIU",
                "bolsa": True,
            }
        ],
        "deleted_rows": [],
    }
    at.run()
    totals = {m.label: m.value for m in at.metric}
    assert totals["ICBPER"] == "S/ 0.50" and totals["Total"] == "S/ 70.60"
    at.button(key="issue_submit").click().run()
    assert "**Boleta de venta B001-" in texts(at.main.info), texts(at.main.error)
    assert "sin enviar a SUNAT" in texts(at.main.info)

    # a credit note for one of the facturas issued before: picked from the list of the last year
    at.button(key="issue_new").click().run()
    at.button_group(key="issue_kind").set_value("07").run()
    invoice = issued.invoices[0]
    at.selectbox(key="note_affected").set_value(invoice.external_id).run()
    assert at.text_input(key="issue_series_07_01").value == "FC01"
    # the note starts from the factura: its customer, currency and lines, all fixed for a total void (01)
    body = invoice_body()
    customer = body["datos_del_cliente_o_receptor"]
    assert at.text_input(key="cust_number").value == customer["numero_documento"]
    assert at.text_input(key="cust_name").value == customer["apellidos_y_nombres_o_razon_social"]
    lines = at.session_state["issue_items_initial"]
    assert list(lines["descripcion"]) == [item["descripcion"] for item in body["items"]]
    assert set(at.session_state["_note_locked"]) == set(issuing.ITEM_COLUMNS)
    at.text_input(key="note_reason").set_value("Anulación de la operación").run()
    # a partial return (07): only the quantities can change
    at.selectbox(key="note_type_07").set_value("07").run()
    assert at.session_state["_note_locked"] == [c for c in issuing.ITEM_COLUMNS if c != "cantidad"]
    at.selectbox(key="note_type_07").set_value("01").run()
    payload = at.json[0].value
    payload = json.loads(payload) if isinstance(payload, str) else payload
    assert payload["documento_afectado"] == {"external_id": invoice.external_id}
    at.button(key="issue_submit").click().run()
    assert not at.exception, at.exception
    assert "**Nota de crédito FC01-" in texts(at.main.success), texts(at.main.error)
