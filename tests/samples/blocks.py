"""Bodies of ``POST /api/documents`` for the scenario blocks of issue 11, with literal amounts.

Written from the API reference's field tables (facturador-api.md §4.1-4.5) and its scenario matrix
(§4.8), in the conventions real clients send; every amount is worked out by hand in the docstring so a
test that changes the service's arithmetic fails here. Each function returns a fresh body dated today.
"""

from __future__ import annotations

from typing import Any

from tests.samples.bodies import boleta_body, invoice_body

__all__ = ["boleta_body", "invoice_body"]

#: A non-domiciled customer (catalog 06 type 0) in Colombia, as in the matrix's export rows.
FOREIGN_CUSTOMER = {
    "codigo_tipo_documento_identidad": "0",
    "numero_documento": "900555111",
    "apellidos_y_nombres_o_razon_social": "CAFES DEL VALLE SAS",
    "codigo_pais": "CO",
    "direccion": "Calle 10 # 5-20, Cali",
}


def taxed_item(**changes: Any) -> dict[str, Any]:
    """2 x 50.00 + IGV 18 % = 118.00."""
    item = {
        "codigo_interno": "TERMO-1L",
        "descripcion": "Termo de acero inoxidable 1 L",
        "unidad_de_medida": "NIU",
        "cantidad": 2,
        "valor_unitario": 50,
        "codigo_tipo_precio": "01",
        "precio_unitario": 59,
        "codigo_tipo_afectacion_igv": "10",
        "total_base_igv": 100,
        "porcentaje_igv": 18,
        "total_igv": 18,
        "total_impuestos": 18,
        "total_valor_item": 100,
        "total_item": 118,
    }
    item.update(changes)
    return item


def free_item_zeros(affectation: str = "13") -> dict[str, Any]:
    """A free line as real clients send it: 2 units of referential value 50.00 known only by the base.

    valor_unitario, precio_unitario, total_valor_item, total_impuestos and total_item are 0;
    total_base_igv = 100.00 and, for a taxed free line (11-16), total_igv = 18.00 (not charged).
    """
    taxed = affectation in {"11", "12", "13", "14", "15", "16"}
    return {
        "codigo_interno": "MUESTRA",
        "descripcion": "Muestra gratuita de termo",
        "unidad_de_medida": "NIU",
        "cantidad": 2,
        "valor_unitario": 0,
        "codigo_tipo_precio": "02",
        "precio_unitario": 0,
        "codigo_tipo_afectacion_igv": affectation,
        "total_base_igv": 100,
        "porcentaje_igv": 18,
        "total_igv": 18 if taxed else 0,
        "total_impuestos": 0,
        "total_valor_item": 0,
        "total_item": 0,
    }


def free_invoice_real_client(affectation: str = "13") -> dict[str, Any]:
    """One taxed line of 118.00 and one free line of referential 100.00: the customer pays 118.00.

    totales: gravadas 100, IGV 18, gratuitas 100, IGV gratuitas 18 (for 11-16; 0 otherwise).
    """
    taxed = affectation in {"11", "12", "13", "14", "15", "16"}
    body = invoice_body()
    body["items"] = [taxed_item(), free_item_zeros(affectation)]
    body["totales"] = {
        "total_operaciones_gravadas": 100,
        "total_operaciones_gratuitas": 100,
        "total_igv_operaciones_gratuitas": 18 if taxed else 0,
        "total_igv": 18,
        "total_impuestos": 18,
        "total_valor": 100,
        "total_venta": 118,
    }
    return body


def free_invoice_referential() -> dict[str, Any]:
    """A free exonerated line (21) with the referential value everywhere: 3 x 20.00 = 60.00, IGV 0."""
    body = invoice_body()
    body["items"] = [
        taxed_item(),
        {
            "codigo_interno": "LIBRO",
            "descripcion": "Libro de regalo",
            "unidad_de_medida": "NIU",
            "cantidad": 3,
            "valor_unitario": 20,
            "codigo_tipo_precio": "02",
            "precio_unitario": 20,
            "codigo_tipo_afectacion_igv": "21",
            "total_base_igv": 60,
            "porcentaje_igv": 18,
            "total_igv": 0,
            "total_impuestos": 0,
            "total_valor_item": 60,
            "total_item": 0,
        },
    ]
    body["totales"] = {
        "total_operaciones_gravadas": 100,
        "total_operaciones_gratuitas": 60,
        "total_igv": 18,
        "total_impuestos": 18,
        "total_valor": 100,
        "total_venta": 118,
    }
    return body


def bag_item(bags: int = 4, per_bag: str = "0.50", *, inside: bool = False) -> dict[str, Any]:
    """``bags`` plastic bags at 0.10 + IGV each; the bag tax ``bags x per_bag`` outside the line's taxes
    (real clients) or, with ``inside``, inside them (SUNAT's convention). 4 bags: value 0.40, IGV 0.07,
    ICBPER 2.00."""
    value = round(bags * 0.10, 2)
    igv = round(value * 0.18 + 1e-9, 2)
    icbper = round(bags * float(per_bag), 2)
    taxes = igv + icbper if inside else igv
    return {
        "codigo_interno": "BOLSA",
        "descripcion": "Bolsa plástica",
        "unidad_de_medida": "NIU",
        "cantidad": bags,
        "valor_unitario": "0.10",
        "codigo_tipo_precio": "01",
        "precio_unitario": f"{(value + taxes) / bags:.10f}",
        "codigo_tipo_afectacion_igv": "10",
        "total_base_igv": f"{value:.2f}",
        "porcentaje_igv": 18,
        "total_igv": f"{igv:.2f}",
        "total_impuestos_bolsa_plastica": f"{icbper:.2f}",
        "total_impuestos": f"{taxes:.2f}",
        "total_valor_item": f"{value:.2f}",
        "total_item": f"{value + taxes:.2f}",
    }


def bag_invoice(*, inside: bool = False, per_bag: str = "0.50") -> dict[str, Any]:
    """118.00 of goods and 4 bags: gravadas 100.40, IGV 18.07, ICBPER 2.00, total 120.47.

    Real clients: total_impuestos 18.07 (no ICBPER), total_venta 120.47 (with it); SUNAT's convention
    (``inside``): total_impuestos 20.07.
    """
    body = invoice_body()
    body["items"] = [taxed_item(), bag_item(4, per_bag, inside=inside)]
    icbper = round(4 * float(per_bag), 2)
    body["totales"] = {
        "total_operaciones_gravadas": "100.40",
        "total_igv": "18.07",
        "total_impuestos_bolsa_plastica": f"{icbper:.2f}",
        "total_impuestos": f"{18.07 + icbper:.2f}" if inside else "18.07",
        "total_valor": "100.40",
        "total_venta": f"{118.47 + icbper:.2f}",
    }
    return body


def export_boleta(quantity: int = 10) -> dict[str, Any]:
    """An export boleta (0200, affectation 40) of ``quantity`` x 100.00 to a non-domiciled customer."""
    body = boleta_body(codigo_tipo_operacion="0200", datos_del_cliente_o_receptor=dict(FOREIGN_CUSTOMER))
    value = quantity * 100
    body["items"] = [
        {
            "codigo_interno": "CAFE-EXP",
            "descripcion": "Café tostado de exportación (kg)",
            "unidad_de_medida": "KGM",
            "cantidad": quantity,
            "valor_unitario": 100,
            "codigo_tipo_precio": "01",
            "precio_unitario": 100,
            "codigo_tipo_afectacion_igv": "40",
            "total_base_igv": value,
            "porcentaje_igv": 18,
            "total_igv": 0,
            "total_impuestos": 0,
            "total_valor_item": value,
            "total_item": value,
        }
    ]
    body["totales"] = {
        "total_exportacion": value,
        "total_operaciones_gravadas": 0,
        "total_igv": 0,
        "total_impuestos": 0,
        "total_valor": value,
        "total_venta": value,
    }
    return body


# ------------------------------------------------------------------------------ discounts and charges


def allowance(code: str, amount: Any, base: Any, factor: Any = None, description: str = "") -> dict[str, Any]:
    """One ``descuentos[]`` / ``cargos[]`` entry (catalog 53)."""
    entry = {"codigo": code, "descripcion": description or f"Código {code}", "monto": amount, "base": base}
    if factor is not None:
        entry["factor"] = factor
    return entry


def line_discount_invoice() -> dict[str, Any]:
    """2 x 50.00 less a 10 % line discount 00 (10.00, base 100.00): value 90.00, IGV 16.20, 106.20."""
    body = invoice_body()
    body["items"] = [
        taxed_item(
            precio_unitario="53.10",
            total_base_igv=90,
            total_igv="16.20",
            total_impuestos="16.20",
            total_valor_item=90,
            total_item="106.20",
            total_descuentos=10,
            descuentos=[allowance("00", 10, 100, "0.10", "Descuento por volumen")],
        )
    ]
    body["totales"] = {
        "total_operaciones_gravadas": 90,
        "total_igv": "16.20",
        "total_impuestos": "16.20",
        "total_valor": 90,
        "total_venta": "106.20",
    }
    return body


def line_discount_outside_invoice() -> dict[str, Any]:
    """2 x 50.00 + IGV = 118.00 less a line discount 01 of 5.00 outside the base: the line pays 113.00;
    AllowanceTotalAmount 5.00."""
    body = invoice_body()
    body["items"] = [
        taxed_item(
            precio_unitario="56.50",
            total_item=113,
            descuentos=[allowance("01", 5, 118)],
        )
    ]
    body["totales"] = {
        "total_operaciones_gravadas": 100,
        "total_igv": 18,
        "total_impuestos": 18,
        "total_valor": 100,
        "subtotal_venta": 118,
        "total_descuentos": 5,
        "total_venta": 113,
    }
    return body


def global_discount_invoice(code: str = "02") -> dict[str, Any]:
    """118.00 with a 5 % global discount: 02 (in the base) 100.00 - 5.00 = 95.00 + IGV 17.10 = 112.10;
    03 (outside the base) of 118.00 x 5 % = 5.90: 118.00 - 5.90 = 112.10 too."""
    body = invoice_body()
    body["items"] = [taxed_item()]
    if code == "02":
        body["descuentos"] = [allowance("02", 5, 100, "0.05", "Descuento global")]
        body["totales"] = {
            "total_operaciones_gravadas": 95,
            "total_igv": "17.10",
            "total_impuestos": "17.10",
            "total_valor": 95,
            "total_venta": "112.10",
        }
    else:
        body["descuentos"] = [allowance("03", "5.90", 118, "0.05", "Descuento global")]
        body["totales"] = {
            "total_operaciones_gravadas": 100,
            "total_igv": 18,
            "total_impuestos": 18,
            "total_valor": 100,
            "subtotal_venta": 118,
            "total_descuentos": "5.90",
            "total_venta": "112.10",
        }
    return body


def global_charge_invoice(code: str = "46") -> dict[str, Any]:
    """118.00 with a 10 % charge on the value 100.00: 46 (tips, outside the base) 118.00 + 10.00 =
    128.00; 49 (in the base) 110.00 + IGV 19.80 = 129.80."""
    body = invoice_body()
    body["items"] = [taxed_item()]
    body["cargos"] = [allowance(code, 10, 100, "0.10", "Recargo al consumo" if code == "46" else "Flete")]
    if code == "49":
        body["totales"] = {
            "total_operaciones_gravadas": 110,
            "total_igv": "19.80",
            "total_impuestos": "19.80",
            "total_valor": 110,
            "total_venta": "129.80",
        }
    else:
        body["totales"] = {
            "total_operaciones_gravadas": 100,
            "total_igv": 18,
            "total_impuestos": 18,
            "total_valor": 100,
            "total_cargos": 10,
            "total_venta": 128,
        }
    return body


# ------------------------------------------------------------------------------------ advance payments


def advance_invoice() -> dict[str, Any]:
    """An advance payment (pago_anticipado) of 100.00 + IGV = 118.00 for a later sale."""
    body = invoice_body(pago_anticipado=True)
    body["items"] = [
        taxed_item(
            codigo_interno="ANT",
            descripcion="Anticipo por 10 termos de acero",
            unidad_de_medida="ZZ",
            cantidad=1,
            valor_unitario=100,
            precio_unitario=118,
        )
    ]
    return body


def final_invoice(advance_number: str, advance_type: str = "02") -> dict[str, Any]:
    """10 x 50.00 = 500.00 less the 100.00 advance ``advance_number`` (discount 04 of 100.00): taxed base
    400.00, IGV 72.00; LineExtensionAmount 500.00 (SUNAT's 3278 leaves 04 in), TaxInclusive 572.00,
    PrepaidAmount 100.00, payable 472.00 (with the advance's 118.00: 590.00 = 500.00 + IGV)."""
    body = invoice_body()
    body["items"] = [
        taxed_item(
            cantidad=10,
            total_base_igv=500,
            total_igv=90,
            total_impuestos=90,
            total_valor_item=500,
            total_item=590,
        )
    ]
    body["descuentos"] = [allowance("04", 100, 100, 1, "Anticipo " + advance_number)]
    body["anticipos"] = [
        {"numero": advance_number, "codigo_tipo_documento": advance_type, "monto": 100, "total": 118}
    ]
    body["totales"] = {
        "total_operaciones_gravadas": 400,
        "total_igv": 72,
        "total_impuestos": 72,
        "total_valor": 500,
        "total_anticipos": 100,
        "total_venta": 472,
    }
    return body


# ----------------------------------------------------------------- references, guides, item attributes


def references_invoice() -> dict[str, Any]:
    """The 118.00 factura with a guide of each kind, a related document (catalog 12 code 99) and the
    plate number both on the line (``datos_adicionales`` 5010) and top-level (``numero_de_placa``)."""
    body = invoice_body(
        guias=[
            {"numero": "T001-25", "codigo_tipo_documento": "09"},
            {"numero": "T002-7", "codigo_tipo_documento": "31"},
        ],
        relacionados=[{"numero": "OC-2026-77", "codigo_tipo_documento": "99", "monto": 118}],
        numero_de_placa="ABC-123",
    )
    body["items"] = [
        taxed_item(
            datos_adicionales=[
                {"codigo": "5010", "descripcion": "Numero de Placa", "valor": "XYZ-987"},
            ]
        ),
        taxed_item(codigo_interno="TERMO-2L", descripcion="Termo de 2 L"),
    ]
    body["totales"] = {
        "total_operaciones_gravadas": 200,
        "total_igv": 36,
        "total_impuestos": 36,
        "total_valor": 200,
        "total_venta": 236,
    }
    return body


# ------------------------------------------------------------------------------------------- payments


def payments_invoice() -> dict[str, Any]:
    """The 118.00 factura paid 50.00 in cash (no destination: cash) and 68.00 by card (reference)."""
    return invoice_body(
        pagos=[
            {"codigo_metodo_pago": "01", "monto": 50},
            {
                "codigo_metodo_pago": "02",
                "referencia": "VOUCHER-8841",
                "monto": 68,
                "codigo_destino_pago": "BCP-01",
            },
        ]
    )


# ------------------------------------------------------------------------------------------------ IVAP


def ivap_invoice() -> dict[str, Any]:
    """Rice (IVAP, affectation 17 at 4 %): 10 x 50.00 = 500.00 + IVAP 20.00 = 520.00."""
    body = invoice_body()
    body["items"] = [
        taxed_item(
            codigo_interno="ARROZ-50",
            descripcion="Arroz pilado saco 50 kg",
            cantidad=10,
            precio_unitario=52,
            codigo_tipo_afectacion_igv="17",
            total_base_igv=500,
            porcentaje_igv=4,
            total_igv=20,
            total_impuestos=20,
            total_valor_item=500,
            total_item=520,
        )
    ]
    body["totales"] = {
        "total_operaciones_gravadas": 0,
        "total_igv": 20,
        "total_impuestos": 20,
        "total_valor": 500,
        "total_venta": 520,
    }
    return body


# ---------------------------------------------------------------------------- perception and retention


def perception_invoice(code: str = "51", percent: Any = 2, amount: Any = "2.36") -> dict[str, Any]:
    """The 118.00 factura with a 2 % perception (51, internal sale) of 2.36: 120.36 with it."""
    return invoice_body(
        codigo_tipo_operacion="2001",
        percepcion={"codigo": code, "porcentaje": percent, "monto": amount, "base": 118},
    )


def retention_invoice() -> dict[str, Any]:
    """A 1,180.00 factura whose customer (a RUC, retention agent) withholds 3 %: 35.40."""
    body = invoice_body(retencion={"codigo": "62", "porcentaje": 3, "monto": "35.40", "base": 1180})
    body["items"] = [
        taxed_item(
            cantidad=20,
            total_base_igv=1000,
            total_igv=180,
            total_impuestos=180,
            total_valor_item=1000,
            total_item=1180,
        )
    ]
    body["totales"] = {
        "total_operaciones_gravadas": 1000,
        "total_igv": 180,
        "total_impuestos": 180,
        "total_valor": 1000,
        "total_venta": 1180,
    }
    return body
