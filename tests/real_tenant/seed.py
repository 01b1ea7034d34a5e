"""A tenant's history for the stand-in, issued through its own endpoints' code (no HTTP): a month of
facturas and boletas, a factura in dollars, a credit note, customers and suppliers (one supplier whose
name matches a customers' search, as real tenants list it), products, 25 sale notes (more than Pro9
lists) and two quotations."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from sunat.calendar import peru_today
from tests.real_tenant.tenant import Tenant

#: A customer and a supplier both named "... NORTE ...": real tenants list both as customers.
CUSTOMERS = (
    ("6", "20601030013", "DISTRIBUIDORA NORTE S.A.C."),
    ("6", "20100070970", "SUPERMERCADOS PERUANOS S.A."),
    ("1", "46027862", "JUAN PEREZ QUISPE"),
)
SUPPLIERS = (("6", "20512345678", "TRANSPORTES NORTE E.I.R.L."), ("6", "20100130204", "ALICORP S.A.A."))
PRODUCTS = (
    ("P001", "Arroz Costeño 5 kg", "24.90", 100),
    ("P002", "Aceite Primor 1 L", "11.50", 80),
    ("P003", "Servicio de instalación", "150.00", 0),
)


def _line(code: str, description: str, quantity: int, price: Decimal) -> dict[str, Any]:
    value = (price / Decimal("1.18")).quantize(Decimal("0.01"))
    base = (value * quantity).quantize(Decimal("0.01"))
    igv = (base * Decimal("0.18")).quantize(Decimal("0.01"))
    return {
        "codigo_interno": code,
        "descripcion": description,
        "unidad_de_medida": "NIU",
        "cantidad": quantity,
        "valor_unitario": str(value),
        "codigo_tipo_precio": "01",
        "precio_unitario": str(price),
        "codigo_tipo_afectacion_igv": "10",
        "total_base_igv": str(base),
        "porcentaje_igv": 18,
        "total_igv": str(igv),
        "total_impuestos": str(igv),
        "total_valor_item": str(base),
        "total_item": str(base + igv),
    }


def document_body(
    day: dt.date,
    *,
    document_type: str = "01",
    customer: tuple[str, str, str] = CUSTOMERS[0],
    quantity: int = 2,
    currency: str = "PEN",
    rate: str | None = None,
    affected: str | None = None,
) -> dict[str, Any]:
    """A wire body of ``POST /api/documents`` (the keys the real Transform reads)."""
    line = _line("P001", "Arroz Costeño 5 kg", quantity, Decimal("24.90"))
    series = {"01": "F001", "03": "B001", "07": "FC01"}[document_type]
    body: dict[str, Any] = {
        "serie_documento": series,
        "numero_documento": "#",
        "fecha_de_emision": day.isoformat(),
        "hora_de_emision": "10:15:00",
        "codigo_tipo_documento": document_type,
        "codigo_tipo_moneda": currency,
        "datos_del_cliente_o_receptor": {
            "codigo_tipo_documento_identidad": customer[0],
            "numero_documento": customer[1],
            "apellidos_y_nombres_o_razon_social": customer[2],
            "codigo_pais": "PE",
        },
        "totales": {
            "total_operaciones_gravadas": line["total_valor_item"],
            "total_igv": line["total_igv"],
            "total_impuestos": line["total_impuestos"],
            "total_valor": line["total_valor_item"],
            "total_venta": line["total_item"],
        },
        "items": [line],
    }
    if rate:
        body["factor_tipo_de_cambio"] = rate
    if document_type in ("01", "03"):
        body |= {"codigo_tipo_operacion": "0101", "fecha_de_vencimiento": day.isoformat()}
    else:
        body |= {
            "codigo_tipo_nota": "01",
            "motivo_o_sustento_de_nota": "Anulación de la operación",
            "documento_afectado": {"external_id": affected},
        }
    return body


def seed(tenant: Tenant, today: dt.date | None = None) -> dict[str, Any]:
    """Fill ``tenant``; return the external ids and numbers tests look for."""
    today = today or peru_today()
    for identity, number, name in CUSTOMERS:
        tenant.add_person("customers", identity, number, name)
    for identity, number, name in SUPPLIERS:
        tenant.add_person("suppliers", identity, number, name)
    for code, description, price, stock in PRODUCTS:
        tenant.add_item(
            code, description, price, stock=Decimal(stock), unit_type_id="ZZ" if stock == 0 else "NIU"
        )
    tenant.restrict_receipt_date = False
    made: dict[str, Any] = {}

    def issue(body: dict[str, Any]) -> dict[str, Any]:
        """Issue ``body`` as the tenant did on its day: a past day's document was registered then (a
        month's register would take one registered after the month's close as a late one, state 8)."""
        answer = tenant.issue(body)
        document = tenant.documents[-1]
        registered = dt.datetime.combine(
            document.date_of_issue, dt.time.fromisoformat(document.time_of_issue)
        )
        document.created_at = document.updated_at = min(registered, document.created_at)
        return answer

    try:
        for days_ago in (20, 12, 6, 2):
            day = today - dt.timedelta(days=days_ago)
            issue(document_body(day, quantity=days_ago))
            issue(document_body(day, document_type="03", customer=CUSTOMERS[2], quantity=1))
        dollars = issue(
            document_body(today - dt.timedelta(days=3), currency="USD", rate="3.725", customer=CUSTOMERS[1])
        )
        factura = issue(document_body(today - dt.timedelta(days=5), customer=CUSTOMERS[1], quantity=4))
        note = issue(
            document_body(
                today - dt.timedelta(days=1),
                document_type="07",
                customer=CUSTOMERS[1],
                quantity=1,
                affected=factura["data"]["external_id"],
            )
        )
        boleta = issue(document_body(today, document_type="03", customer=CUSTOMERS[2], quantity=3))
        invoice = issue(document_body(today, quantity=5))
        made |= {
            "dollars": dollars["data"],
            "factura": factura["data"],
            "note": note["data"],
            "boleta": boleta["data"],
            "invoice": invoice["data"],
        }
    finally:
        tenant.restrict_receipt_date = True
    product = tenant.items[0]
    person = tenant.persons[0]
    for index in range(25):  # more sale notes than Pro9 lists (20)
        day = today - dt.timedelta(days=24 - index)
        tenant.store_sale_note(sale_note_body(day, person.id, product.id), "")
        tenant.sale_notes[-1].created_at = dt.datetime.combine(day, dt.time(9, 0, index))
    quotation = {
        "prefix": "COT",
        "customer_id": person.id,
        "currency_type_id": "PEN",
        "exchange_rate_sale": 1,
        "date_of_issue": today.isoformat(),
        "time_of_issue": "09:00:00",
        "total_taxed": "42.20",
        "total_igv": "7.60",
        "total": "49.80",
        "payments": [],
        "items": [{"item_id": product.id, "quantity": 2}],
    }
    made["quotations"] = [tenant.store_quotation(quotation, "")["data"] for _ in range(2)]
    made["sale_notes"] = [n.number_full for n in tenant.sale_notes]
    return made


def sale_note_body(day: dt.date, customer_id: int, item_id: int) -> dict[str, Any]:
    """A ``POST /api/sale-note`` body as the real web form sends it (internal keys, by ids)."""
    return {
        "series_id": 10,
        "prefix": "NV",
        "customer_id": customer_id,
        "currency_type_id": "PEN",
        "exchange_rate_sale": 1,
        "date_of_issue": day.isoformat(),
        "time_of_issue": "09:00:00",
        "payments": [],
        "total_taxed": "42.20",
        "total_igv": "7.60",
        "total": "49.80",
        "items": [
            {
                "item_id": item_id,
                # the product as the form found it (the rest of its row: tests/real_tenant/tenant.py)
                "item": {
                    "id": item_id,
                    "description": "Arroz Costeño 5 kg",
                    "unit_type_id": "NIU",
                    "is_set": False,
                },
                "quantity": 2,
                "unit_value": "21.10",
                "affectation_igv_type_id": "10",
                "total_base_igv": "42.20",
                "percentage_igv": 18,
                "total_igv": "7.60",
                "total_taxes": "7.60",
                "price_type_id": "01",
                "unit_price": "24.90",
                "total_value": "42.20",
                "total": "49.80",
            }
        ],
    }
