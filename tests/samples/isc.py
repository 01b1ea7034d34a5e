"""Bodies of ``POST /api/documents`` with ISC (scheme 2000) and other taxes (scheme 9999), literal amounts.

Fields from the API reference (facturador-api.md §4.3: ``codigo_tipo_sistema_isc``, ``total_base_isc``,
``porcentaje_isc``, ``total_isc``; ``total_base_otros_impuestos``, ``porcentaje_otros_impuestos``,
``total_otros_impuestos``; header ``total_base_isc``, ``total_isc``, ``total_base_otros_impuestos``,
``total_otros_impuestos``). SUNAT's formulas (sunat.md §2.3 and its stylesheets): ISC = base x percent
(3108) and the IGV base includes it (3272); other taxes = base x percent (3109), outside the IGV base; the
line's taxes and the header's add both (3292, 3294); the header's taxed base stays the values (3277).
Every amount is worked out by hand in the docstrings; each function returns a fresh body dated today.
"""

from __future__ import annotations

from typing import Any

from tests.samples.bodies import boleta_body, credit_note_body, invoice_body


def _item(code: str, description: str, **amounts: Any) -> dict[str, Any]:
    item = {
        "codigo_interno": code,
        "descripcion": description,
        "unidad_de_medida": "NIU",
        "codigo_tipo_precio": "01",
        "codigo_tipo_afectacion_igv": "10",
        "porcentaje_igv": 18,
    }
    item.update(amounts)
    return item


#: One line per ISC system (catalog 08), with the header totals of an invoice made of it alone.
ISC_LINES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # 01 al valor: 10 x 5.00 = 50.00; ISC 30 % of 50.00 = 15.00; IGV 18 % of 65.00 = 11.70;
    # taxes 26.70; total 76.70; unit price 7.67
    "01": (
        _item(
            "CERV-1",
            "Cerveza caja x 12",
            cantidad=10,
            valor_unitario=5,
            precio_unitario="7.67",
            codigo_tipo_sistema_isc="01",
            total_base_isc=50,
            porcentaje_isc=30,
            total_isc=15,
            total_base_igv=65,
            total_igv="11.70",
            total_impuestos="26.70",
            total_valor_item=50,
            total_item="76.70",
        ),
        {"gravadas": "50.00", "igv": "11.70", "isc_base": "50.00", "isc": "15.00", "total": "76.70"},
    ),
    # 02 monto fijo: 6 x 20.00 = 120.00; ISC 1.50 per bottle = 9.00, the effective rate 7.5 % of 120.00;
    # IGV 18 % of 129.00 = 23.22; taxes 32.22; total 152.22; unit price 25.37
    "02": (
        _item(
            "PISCO-1",
            "Pisco quebranta 750 ml",
            cantidad=6,
            valor_unitario=20,
            precio_unitario="25.37",
            codigo_tipo_sistema_isc="02",
            total_base_isc=120,
            porcentaje_isc="7.5",
            total_isc=9,
            total_base_igv=129,
            total_igv="23.22",
            total_impuestos="32.22",
            total_valor_item=120,
            total_item="152.22",
        ),
        {"gravadas": "120.00", "igv": "23.22", "isc_base": "120.00", "isc": "9.00", "total": "152.22"},
    ),
    # 03 precio de venta al público: 10 packs x 8.00 = 80.00; public price 12.00 a pack, base 120.00,
    # ISC 30 % = 36.00; IGV 18 % of 116.00 = 20.88; taxes 56.88; total 136.88; unit price 13.688
    "03": (
        _item(
            "CIG-20",
            "Cigarrillos cajetilla x 20",
            cantidad=10,
            valor_unitario=8,
            precio_unitario="13.688",
            codigo_tipo_sistema_isc="03",
            total_base_isc=120,
            porcentaje_isc=30,
            total_isc=36,
            total_base_igv=116,
            total_igv="20.88",
            total_impuestos="56.88",
            total_valor_item=80,
            total_item="136.88",
        ),
        {"gravadas": "80.00", "igv": "20.88", "isc_base": "120.00", "isc": "36.00", "total": "136.88"},
    ),
}


def isc_item(system: str = "01") -> dict[str, Any]:
    """The line of :data:`ISC_LINES` for ``system``."""
    return dict(ISC_LINES[system][0])


def _isc_totals(system: str) -> dict[str, Any]:
    t = ISC_LINES[system][1]
    taxes = f"{float(t['igv']) + float(t['isc']):.2f}"
    return {
        "total_operaciones_gravadas": t["gravadas"],
        "total_igv": t["igv"],
        "total_base_isc": t["isc_base"],
        "total_isc": t["isc"],
        "total_impuestos": taxes,
        "total_valor": t["gravadas"],
        "total_venta": t["total"],
    }


def isc_invoice(system: str = "01") -> dict[str, Any]:
    """A factura of the one ISC line of ``system`` (01: 76.70, 02: 152.22, 03: 136.88)."""
    body = invoice_body()
    body["items"] = [isc_item(system)]
    body["totales"] = _isc_totals(system)
    return body


def isc_boleta(system: str = "01") -> dict[str, Any]:
    """A boleta (DNI customer) of the one ISC line of ``system``."""
    body = boleta_body()
    body["items"] = [isc_item(system)]
    body["totales"] = _isc_totals(system)
    return body


def isc_credit_note(affected_external_id: str, system: str = "01") -> dict[str, Any]:
    """A credit note FC01 type 01 cancelling the ISC factura ``affected_external_id`` (same amounts)."""
    body = credit_note_body(affected_external_id)
    body["items"] = [isc_item(system)]
    body["totales"] = _isc_totals(system)
    return body


def other_taxes_item() -> dict[str, Any]:
    """10 x 10.00 = 100.00; other taxes 5 % of 100.00 = 5.00 (outside the IGV base); IGV 18.00; taxes
    23.00; total 123.00; unit price 12.30."""
    return _item(
        "SERV-T",
        "Servicio con tributo municipal",
        cantidad=10,
        valor_unitario=10,
        precio_unitario="12.30",
        total_base_otros_impuestos=100,
        porcentaje_otros_impuestos=5,
        total_otros_impuestos=5,
        total_base_igv=100,
        total_igv=18,
        total_impuestos=23,
        total_valor_item=100,
        total_item=123,
    )


def other_taxes_invoice() -> dict[str, Any]:
    """A factura of :func:`other_taxes_item` and the 118.00 line: gravadas 200.00, IGV 36.00, other taxes
    5.00, taxes 41.00, total 241.00."""
    body = invoice_body()
    body["items"] = [other_taxes_item(), *body["items"]]
    body["totales"] = {
        "total_operaciones_gravadas": "200.00",
        "total_igv": "36.00",
        "total_base_otros_impuestos": "100.00",
        "total_otros_impuestos": "5.00",
        "total_impuestos": "41.00",
        "total_valor": "200.00",
        "total_venta": "241.00",
    }
    return body
