"""The instalments plugin: the table field, the payload, the checks, and end to end through the service."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pandas as pd
import pytest

from connector import Client, FieldError, ValidationError
from connector.builders import Customer, Invoice, Line
from connector.plugins import make_plugin_manager
from plugins import instalments
from sunat.calendar import peru_today

CUSTOMER = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.")
TODAY = peru_today()


def day(offset: int) -> dt.date:
    return TODAY + dt.timedelta(days=offset)


def sale(**kw: Any) -> Invoice:
    """S/ 1,180.00."""
    return Invoice(customer=CUSTOMER, lines=[Line("Servicio", 1, unit_value=1000, unit="ZZ")], **kw)


def prepare(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    return instalments.facturador_prepare_payload(payload, values)


def validate(payload: dict[str, Any]) -> list[FieldError]:
    return instalments.facturador_validate_payload(payload)


def test_form_field_is_a_table() -> None:
    (field,) = instalments.facturador_form_fields("01")
    assert field.key == "instalments.rows" and field.kind == "table" and field.section == "Pago al crédito"
    assert [(c.key, c.kind) for c in field.columns] == [("date", "date"), ("amount", "number")]
    assert instalments.facturador_form_fields("03") == []
    assert make_plugin_manager().form_fields("persons", None) == []  # a built-in of documents alone


def test_prepare_from_rows_and_from_a_dataframe() -> None:
    rows = [
        {"date": day(60), "amount": 590},
        {"date": None, "amount": None},  # the empty row of an editable table
        {"date": day(30).isoformat(), "amount": "590.00"},
    ]
    payload = sale().to_payload()
    prepared = prepare(payload, {"instalments.rows": rows})
    assert prepared is not None and "cuotas" not in payload
    assert prepared["codigo_condicion_de_pago"] == "02"
    assert prepared["cuotas"] == [
        {"fecha": day(30).isoformat(), "codigo_tipo_moneda": "PEN", "monto": 590.0},
        {"fecha": day(60).isoformat(), "codigo_tipo_moneda": "PEN", "monto": 590.0},
    ]
    assert validate(prepared) == []
    frame = pd.DataFrame({"date": [pd.Timestamp(day(30)), pd.NaT], "amount": [1180.0, float("nan")]})
    from_frame = prepare(sale(currency="USD").to_payload(), {"instalments.rows": frame})
    assert from_frame is not None
    assert from_frame["cuotas"] == [
        {"fecha": day(30).isoformat(), "codigo_tipo_moneda": "USD", "monto": 1180.0}
    ]
    assert prepare(payload, {}) is None and prepare(payload, {"instalments.rows": []}) is None
    assert make_plugin_manager().prepare_payload("voided", payload, {"instalments.rows": rows}) is payload


def credit(cuotas: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {**sale().to_payload(), "codigo_condicion_de_pago": "02", "cuotas": cuotas, **extra}


def cuota(offset: int, amount: Any, currency: str = "PEN") -> dict[str, Any]:
    return {"fecha": day(offset).isoformat(), "codigo_tipo_moneda": currency, "monto": amount}


@pytest.mark.parametrize(
    ("payload", "field", "code"),
    [
        (credit([]), "cuotas", "3249"),
        (credit([cuota(-1, 1180)]), "cuotas.0.fecha", "3267"),
        (credit([{**cuota(1, 1180), "fecha": "30/12/2026"}]), "cuotas.0.fecha", ""),
        (credit([cuota(1, 0), cuota(2, 1180)]), "cuotas.0.monto", "3254"),
        (credit([cuota(1, 1180, "USD")]), "cuotas.0.codigo_tipo_moneda", "2071"),
        (credit([cuota(1, 1000)]), "cuotas", "3319"),
        ({**sale().to_payload(), "cuotas": [cuota(1, 1180)]}, "cuotas", "3252"),
    ],
)
def test_validate_refuses(payload: dict[str, Any], field: str, code: str) -> None:
    problems = validate(payload)
    assert field in [p.field for p in problems]
    assert code in " ".join(p.message for p in problems)


def test_net_pending_is_total_minus_detraction() -> None:
    detraction = {"codigo_tipo_detraccion": "037", "porcentaje": 12, "monto": 141.6}
    assert validate(credit([cuota(30, 1038.4)], detraccion=detraction)) == []
    assert validate(credit([cuota(30, 1180)], detraccion=detraction))[0].field == "cuotas"
    usd = credit(
        [cuota(30, "1038.40", "USD")],
        detraccion={**detraction, "monto": 538.08},
        codigo_tipo_moneda="USD",
        factor_tipo_de_cambio=3.8,
    )
    assert validate(usd) == []  # 1180 - 538.08 / 3.8 = 1180 - 141.60
    assert instalments.net_pending(usd) is not None
    assert instalments.net_pending({**usd, "factor_tipo_de_cambio": None}) is None
    assert validate(sale().to_payload()) == []  # cash: nothing to check


# -- end to end --------------------------------------------------------------------------------------


def forma_pago(xml: bytes) -> list[tuple[str, str, str]]:
    """(PaymentMeansID, Amount, PaymentDueDate) of every FormaPago term."""
    found = []
    for block in re.findall(r"<cac:PaymentTerms>(.*?)</cac:PaymentTerms>", xml.decode(), re.S):
        if "<cbc:ID>FormaPago</cbc:ID>" not in block:
            continue
        means = re.search(r"<cbc:PaymentMeansID>(.*?)<", block)
        amount = re.search(r"<cbc:Amount[^>]*>(.*?)<", block)
        due = re.search(r"<cbc:PaymentDueDate>(.*?)<", block)
        found.append(
            (means.group(1) if means else "", amount.group(1) if amount else "", due.group(1) if due else "")
        )
    return found


def test_issue_on_credit_through_the_service(client: Client) -> None:
    rows = [{"date": day(30), "amount": 590}, {"date": day(60), "amount": 590}]
    result = client.documents.issue(sale(), form_values={"instalments.rows": rows})
    assert result.state_type_id == "05" and result.response is not None and result.response.accepted
    assert forma_pago(client.documents.download_xml(result.external_id)) == [
        ("Credito", "1180.00", ""),
        ("Cuota001", "590.00", day(30).isoformat()),
        ("Cuota002", "590.00", day(60).isoformat()),
    ]


def test_credit_with_detraction_through_the_service(client: Client) -> None:
    values = {
        "detraction.code": "037",
        "detraction.account": "00-000-123456",
        "instalments.rows": [{"date": day(15), "amount": "1038.40"}],
    }
    result = client.documents.issue(sale(), form_values=values)
    assert result.state_type_id == "05"
    assert forma_pago(client.documents.download_xml(result.external_id)) == [
        ("Credito", "1038.40", ""),
        ("Cuota001", "1038.40", day(15).isoformat()),
    ]


def test_wrong_sum_is_caught_before_sending(client: Client) -> None:
    with pytest.raises(ValidationError) as caught:
        client.documents.issue(sale(), form_values={"instalments.rows": [{"date": day(30), "amount": 1000}]})
    assert caught.value.status is None and caught.value.errors_for("cuotas")
    assert "1180.00" in caught.value.message
