"""_line passes a Line's fields by position: each field must come from its own item key."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from facturador.domain.document_input import _line
from facturador.issued import AllowanceCharge, ItemProperty, Line


def _item() -> dict:
    """An item's values as the reader gives them, every amount and text different from the others."""
    amounts = (
        "cantidad valor_unitario precio_unitario total_base_igv porcentaje_igv total_igv total_impuestos "
        "total_valor_item total_item total_impuestos_bolsa_plastica total_base_isc porcentaje_isc total_isc "
        "total_base_otros_impuestos porcentaje_otros_impuestos total_otros_impuestos"
    ).split()
    item: dict = {key: Decimal(index + 1) for index, key in enumerate(amounts)}
    item |= {
        "descripcion": "description",
        "unidad_de_medida": "unit",
        "codigo_tipo_precio": "price type",
        "codigo_tipo_afectacion_igv": "affectation",
        "codigo_interno": "internal code",
        "codigo_producto_sunat": "sunat code",
        "codigo_tipo_sistema_isc": "isc system",
        "descuentos": [
            {"codigo": "00", "monto": Decimal("0.5"), "base": None, "factor": None, "descripcion": ""}
        ],
        "cargos": [],
        "datos_adicionales": [
            {
                "codigo": "5010",
                "descripcion": "Placa",
                "valor": "ABC-123",
                "fecha_inicio": dt.date(2026, 1, 2),
                "fecha_fin": None,
                "duracion": None,
            }
        ],
    }
    return item


def test_every_field_of_a_line_comes_from_its_item_key() -> None:
    item = _item()
    assert _line(item, 4) == Line(
        index=5,
        description="description",
        unit="unit",
        quantity=Decimal(1),
        unit_value=Decimal(2),
        price_type="price type",
        unit_price=Decimal(3),
        affectation="affectation",
        igv_base=Decimal(4),
        igv_percent=Decimal(5),
        igv=Decimal(6),
        taxes=Decimal(7),
        value=Decimal(8),
        total=Decimal(9),
        icbper=Decimal(10),
        internal_code="internal code",
        sunat_code="sunat code",
        allowances=(AllowanceCharge("00", Decimal("0.5"), Decimal("0.5"), None, ""),),
        properties=(ItemProperty("5010", "Placa", "ABC-123", dt.date(2026, 1, 2)),),
        isc_system="isc system",
        isc_base=Decimal(11),
        isc_percent=Decimal(12),
        isc=Decimal(13),
        other_base=Decimal(14),
        other_percent=Decimal(15),
        other=Decimal(16),
    )


def test_an_item_without_allowances_nor_properties() -> None:
    item = _item() | {"descuentos": [], "datos_adicionales": [], "codigo_tipo_sistema_isc": ""}
    line = _line(item, 0)
    assert line.allowances == () and line.properties == () and line.isc_system == "" and line.index == 1
