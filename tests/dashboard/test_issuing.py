"""Unit tests of the Issue page's pure logic: form -> builder, live totals, error routing."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pandas as pd
import pytest

from connector import FieldError
from connector.builders import CreditNote, Invoice, Receipt
from connector.plugins import make_plugin_manager
from dashboard import issuing


def items(*rows: dict[str, object]) -> pd.DataFrame:
    """An items table as the editor returns it (blank rows included)."""
    table = issuing.blank_items(len(rows))
    for position, row in enumerate(rows):
        for key, value in row.items():
            table.loc[position, key] = value
    return table


def form(**changes: object) -> issuing.DocumentForm:
    base = issuing.DocumentForm(
        customer_number="20601030013",
        customer_name="EMPRESA XYZ S.A.C.",
        items=items({"descripcion": "Inca Kola 250 ml", "cantidad": 2.0, "precio": 59.0}),
        issue_date=dt.date(2026, 11, 20),
    )
    for key, value in changes.items():
        setattr(base, key, value)
    return base


def test_blank_rows_are_ignored_and_bad_rows_named() -> None:
    table = items(
        {"descripcion": "Servicio", "cantidad": 1.0, "precio": 118.0},
        {},  # the editor's empty row
        {"descripcion": "", "cantidad": 0.0, "precio": 5.0},
    )
    assert [position for position, _ in issuing.item_rows(table)] == [0, 2]
    problems = issuing.item_problems(table)
    assert list(problems) == [2]
    assert problems[2] == ["Descripción: falta.", "Cantidad: debe ser mayor que cero."]
    with pytest.raises(issuing.FormProblems) as caught:
        issuing.lines_from_items(table)
    assert caught.value.problems["items"][0] == "Ítem 3 · Descripción: falta."


def test_lines_keep_the_typed_decimals_and_the_price_mode() -> None:
    table = items({"descripcion": "Arroz", "cantidad": 0.1, "precio": 4.2, "unidad": "KGM", "bolsa": False})
    (with_igv,) = issuing.lines_from_items(table)
    assert (with_igv.quantity, with_igv.unit_price, with_igv.unit_value) == (
        Decimal("0.1"),
        Decimal("4.2"),
        None,
    )
    assert with_igv.unit == "KGM"
    (without,) = issuing.lines_from_items(table, prices_include_igv=False)
    assert (without.unit_price, without.unit_value) == (None, Decimal("4.2"))


def test_build_an_invoice_and_its_live_totals() -> None:
    builder = issuing.build_document(form())
    assert isinstance(builder, Invoice)
    shown = issuing.preview(builder)
    assert (shown.totals.taxed, shown.totals.igv, shown.totals.total) == (
        Decimal("100.00"),
        Decimal("18.00"),
        Decimal("118.00"),
    )
    frame = shown.lines_frame(["Inca Kola 250 ml"])
    assert list(frame.loc[0, ["Cantidad", "Valor unitario", "Precio unitario", "Total"]]) == [
        "2.0",  # the helper's float 2.0
        "50.00",
        "59.00",
        "118.00",
    ]
    payload = builder.to_payload()
    assert payload["fecha_de_emision"] == "2026-11-20"
    assert payload["datos_del_cliente_o_receptor"]["numero_documento"] == "20601030013"


def test_receipt_and_notes() -> None:
    receipt = issuing.build_document(form(kind="03", series="B001", identity_type="-", customer_number=""))
    assert isinstance(receipt, Receipt)
    assert receipt.to_payload()["datos_del_cliente_o_receptor"]["numero_documento"] == "-"

    note = issuing.build_document(
        form(kind="07", series="FC01", reason="Anulación", affected_external_id="abc-123", note_type="01")
    )
    assert isinstance(note, CreditNote)
    assert note.to_payload()["documento_afectado"] == {"external_id": "abc-123"}

    typed = issuing.build_document(
        form(kind="08", series="BD01", reason="Intereses", affected_number="b001-00012", affected_type="03")
    )
    assert typed.to_payload()["documento_afectado"] == {
        "serie_documento": "B001",
        "numero_documento": "12",
        "codigo_tipo_documento": "03",
    }


def test_form_problems_name_their_widgets() -> None:
    with pytest.raises(issuing.FormProblems) as caught:
        issuing.build_document(
            form(kind="07", series=" ", customer_name="", reason="", items=issuing.blank_items())
        )
    assert set(caught.value.problems) == {"series", "customer.name", "note.reason", "note.affected", "items"}


def test_parse_document_number() -> None:
    assert issuing.parse_document_number("F001-123") == ("F001", 123)
    assert issuing.parse_document_number(" f001 - 0007 ") == ("F001", 7)
    assert issuing.parse_document_number("F001") is None


def test_route_service_errors_to_widgets() -> None:
    errors = [
        FieldError("items.0.cantidad", "La cantidad debe ser un número."),
        FieldError("items.1.codigo_tipo_afectacion_igv", "No está en el catálogo 07."),
        FieldError("datos_del_cliente_o_receptor.numero_documento", "El RUC no es válido."),
        FieldError("datos_del_cliente_o_receptor.codigo_tipo_documento_identidad", "DNI no válido."),
        FieldError("serie_documento", "La serie F777 no existe."),
        FieldError("totales.total_venta", "No cuadra."),
        FieldError("documento_afectado.external_id", "No existe."),
        FieldError("detraccion.cuenta_bancaria", "Falta la cuenta."),
        FieldError("cuotas.0.fecha", "Fecha inválida."),
        FieldError("instalments.rows", "Agrega una cuota."),
        FieldError("algo_raro", "¿?"),
        FieldError("", "Mensaje general."),
    ]
    routed = issuing.route_errors(
        errors,
        ["instalments.rows", "detraction.code"],
        owners={"detraccion": "Detracción", "cuotas": "Pago al crédito"},
        message="El comprobante tiene errores.",
    )
    assert routed["items"] == [
        "Ítem 1 · Cantidad: La cantidad debe ser un número.",
        "Ítem 2 · Afectación IGV: No está en el catálogo 07.",
        "No cuadra.",
    ]
    assert routed["customer.number"] == ["El RUC no es válido."]
    assert routed["customer.identity_type"] == ["DNI no válido."]
    assert routed["series"] == ["La serie F777 no existe."]
    assert routed["note.affected"] == ["No existe."]
    assert routed["section:Detracción"] == ["Falta la cuenta."]
    assert routed["section:Pago al crédito"] == ["Fecha inválida."]
    assert routed["plugin:instalments.rows"] == ["Agrega una cuota."]
    assert routed[issuing.GENERAL] == ["El comprobante tiene errores.", "algo_raro: ¿?", "Mensaje general."]


def test_route_errors_does_not_repeat_the_message() -> None:
    routed = issuing.route_errors(
        [FieldError("serie_documento", "Serie inválida.")], message="Serie inválida."
    )
    assert routed == {"series": ["Serie inválida."]}


def test_block_owners_finds_what_each_plugin_section_writes() -> None:
    host = make_plugin_manager()
    builder = issuing.build_document(
        form(items=items({"descripcion": "Mantenimiento", "cantidad": 1.0, "precio": 2360.0}))
    )
    values = {
        "detraction.code": "037",
        "detraction.account": "00-000-123456",
        "instalments.rows": [{"date": dt.date(2026, 12, 20), "amount": 2076.8}],
    }
    sections = {
        "Detracción": [
            "detraction.code",
            "detraction.percent",
            "detraction.account",
            "detraction.payment_method",
        ],
        "Pago al crédito": ["instalments.rows"],
    }
    owners = issuing.block_owners(
        lambda payload, vals: host.prepare_payload("documents", payload, vals),
        builder.to_payload(),
        values,
        sections,
    )
    assert owners["detraccion"] == "Detracción"
    assert owners["cuotas"] == "Pago al crédito"
    assert owners["codigo_condicion_de_pago"] == "Pago al crédito"


def test_plugin_values_drop_blank_table_rows() -> None:
    table = pd.DataFrame({"date": [dt.date(2026, 12, 1), None], "amount": [10.0, float("nan")]})
    assert issuing.plugin_values({"instalments.rows": table, "detraction.code": ""}) == {
        "instalments.rows": [{"date": dt.date(2026, 12, 1), "amount": 10.0}],
        "detraction.code": "",
    }


@pytest.mark.parametrize(
    ("typed", "problem"),
    [
        ("−50", "no puede ser negativo"),  # a Unicode minus (U+2212), as a phone or a word processor types it
        ("-50", "no puede ser negativo"),
        ("–50", "no puede ser negativo"),  # an en dash
        ("5,00", "punto decimal"),
        ("50 soles", "no es un número"),
        ("1e3", "no es un número"),
        ("5..0", "no es un número"),
    ],
)
def test_a_price_the_form_cannot_take_is_an_error_not_another_number(typed: str, problem: str) -> None:
    """Issue 31: «−50» became 50 or 5.00 and a factura for S/ 5.00 was issued. Typed text is read as it
    is, or refused under the items with what was typed; nothing is built."""
    table = items({"descripcion": "Servicio", "cantidad": 1.0, "precio": typed})
    problems = issuing.item_problems(table)
    assert list(problems) == [0]
    [message] = problems[0]
    assert message.startswith("Precio") and problem in message and f"«{typed}»" in message, message
    with pytest.raises(issuing.FormProblems):
        issuing.build_document(form(items=table))


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("50", "50"),
        (" 1250.50 ", "1250.50"),
        ("1,250.50", "1250.50"),
        (".5", "0.5"),
        ("0.000001", "0.000001"),
    ],
)
def test_a_typed_price_is_read_exactly(typed: str, read: str) -> None:
    table = items({"descripcion": "Servicio", "cantidad": 2.0, "precio": typed})
    (line,) = issuing.lines_from_items(table)
    assert (line.quantity, line.unit_price) == (Decimal("2"), Decimal(read))


def test_a_negative_quantity_is_an_error() -> None:
    table = items({"descripcion": "Servicio", "cantidad": -2.0, "precio": "10"})
    assert issuing.item_problems(table) == {0: ["Cantidad: «-2.0» no puede ser negativo."]}
