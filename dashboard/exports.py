"""Documentos' CSV and Excel: each document with the figures of the page's cards (valor de venta, IGV,
ICBPER and total in soles, each document at its own exchange rate, credit notes negative, voided and
rejected ones out), the document a note modifies, and a totals row equal to the cards.

The rules are :mod:`analysis.sales`' (:func:`~analysis.sales.summarize`, the cards' figures): every
amount here is its :class:`~analysis.sales.Sale`'s, so the totals row is the cards' to the cent. The
Excel has the accountant's sheet (``Documentos``: dates ``dd/mm/yyyy``, names, the totals row) and a
machine-readable one beside it (``Datos``: ISO dates, SUNAT's codes, plain numbers, no totals row); the
CSV is the accountant's sheet (dates ``dd/mm/yyyy``, UTF-8 with BOM)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import pandas as pd

from analysis.sales import SOLES, Sale, sales_of, summarize
from dashboard.data import state_label, type_label

#: The accountant's columns, in order (amounts in soles end with «(S/)»).
COLUMNS = (
    "Fecha",
    "Número",
    "Tipo",
    "Doc. modificado",
    "RUC/DNI",
    "Cliente",
    "Estado",
    "En las cifras",
    "Moneda",
    "Tipo de cambio",
    "Total en su moneda",
    "Valor de venta (S/)",
    "IGV (S/)",
    "ICBPER (S/)",
    "Total (S/)",
)
SOLES_COLUMNS = ("Valor de venta (S/)", "IGV (S/)", "ICBPER (S/)", "Total (S/)")
#: The machine-readable sheet's columns (ISO dates, codes, plain numbers).
DATA_COLUMNS = (
    "fecha",
    "numero",
    "tipo_documento",
    "documento_modificado",
    "cliente_numero",
    "cliente_nombre",
    "estado",
    "en_cifras",
    "moneda",
    "tipo_cambio",
    "total_moneda",
    "valor_venta_pen",
    "igv_pen",
    "icbper_pen",
    "total_pen",
)


def _why_not(sale: Sale) -> str:
    if not sale.counted:
        return f"No ({state_label(sale.state).lower()})"
    if sale.soles is None:
        return "No (sin tipo de cambio)"
    return "Sí"


def _soles(sale: Sale) -> tuple[Decimal, Decimal, Decimal, Decimal] | None:
    """Valor de venta, IGV, ICBPER and total in soles, signed; ``None`` when it is out of the figures."""
    amounts = sale.soles if sale.counted else None
    if amounts is None:
        return None
    return amounts.value, amounts.igv, amounts.icbper, amounts.total


def rows_of(sales: Sequence[Sale]) -> list[dict[str, Any]]:
    """One dict per document (:data:`COLUMNS`; amounts Decimal, the date a date), newest first."""
    ordered = sorted(sales, key=lambda s: (s.date, s.series, s.correlative or 0), reverse=True)
    out = []
    for sale in ordered:
        soles = _soles(sale)
        out.append(
            {
                "Fecha": sale.date,
                "Número": sale.number,
                "Tipo": type_label(sale.document_type),
                "Doc. modificado": sale.affected_number,
                "RUC/DNI": sale.customer_number,
                "Cliente": sale.customer_name,
                "Estado": state_label(sale.state),
                "En las cifras": _why_not(sale),
                "Moneda": sale.currency,
                "Tipo de cambio": sale.rate if sale.currency != SOLES else None,
                "Total en su moneda": sale.signed.total,
                **dict(zip(SOLES_COLUMNS, soles or (None,) * 4, strict=True)),
                "_codes": (sale.document_type, sale.state),
            }
        )
    return out


def totals_of(sales: Sequence[Sale]) -> dict[str, Any]:
    """The totals row: the cards' valor de venta, IGV, ICBPER and total (``summarize``), and how many
    documents are in them."""
    soles = summarize(sales).soles
    counted = sum(1 for sale in sales if sale.counted and sale.soles is not None)
    return {
        "Número": f"TOTAL ({counted:,} en las cifras)",
        **dict(zip(SOLES_COLUMNS, (soles.value, soles.igv, soles.icbper, soles.total), strict=True)),
    }


def _text(value: Any, places: str = "0.01") -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return f"{value.quantize(Decimal(places)):f}" if places else f"{value:f}"
    return str(value)


def csv_bytes(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """The accountant's CSV of list rows: :data:`COLUMNS`, dates ``dd/mm/yyyy``, the totals row last."""
    sales = sales_of(rows)
    lines = []
    for row in [*rows_of(sales), totals_of(sales)]:
        line = {}
        for name in COLUMNS:
            value = row.get(name)
            if name == "Fecha" and value is not None:
                line[name] = f"{value:%d/%m/%Y}"
            elif name == "Tipo de cambio":
                line[name] = _text(value, "")
            else:
                line[name] = _text(value)
        lines.append(line)
    frame = pd.DataFrame(lines, columns=list(COLUMNS))
    return frame.to_csv(index=False).encode("utf-8-sig")


def excel_bytes(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """The workbook of list rows: ``Documentos`` (the accountant's: dates as dates shown ``DD/MM/YYYY``,
    amounts as numbers ``#,##0.00``, the totals row bold) and ``Datos`` (machine-readable)."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    sales = sales_of(rows)
    documents = rows_of(sales)
    workbook = Workbook()
    ws = workbook.active
    assert ws is not None
    ws.title = "Documentos"
    ws.append(list(COLUMNS))
    for cell in ws[1]:
        cell.font = Font(bold=True)
    ws.freeze_panes = "A2"
    for row in [*documents, totals_of(sales)]:
        ws.append([row.get(name) for name in COLUMNS])
    last = ws.max_row
    for cell in ws[last]:
        cell.font = Font(bold=True)
    formats = {
        COLUMNS.index("Fecha"): "DD/MM/YYYY",
        COLUMNS.index("Tipo de cambio"): "0.000",
        **{COLUMNS.index(name): "#,##0.00" for name in ("Total en su moneda", *SOLES_COLUMNS)},
    }
    for row_cells in ws.iter_rows(min_row=2):
        for index, number_format in formats.items():
            row_cells[index].number_format = number_format
    widths = {"Fecha": 12, "Número": 24, "Tipo": 16, "Doc. modificado": 16, "RUC/DNI": 14, "Cliente": 40}
    for index, name in enumerate(COLUMNS):
        ws.column_dimensions[chr(65 + index)].width = widths.get(name, 15)
    data = workbook.create_sheet("Datos")
    data.append(list(DATA_COLUMNS))
    for row in documents:
        kind, state = row["_codes"]
        data.append(
            [
                row["Fecha"].isoformat(),
                row["Número"],
                kind,
                row["Doc. modificado"],
                row["RUC/DNI"],
                row["Cliente"],
                state,
                1 if row["En las cifras"] == "Sí" else 0,
                row["Moneda"],
                row["Tipo de cambio"],
                row["Total en su moneda"],
                *(row[name] for name in SOLES_COLUMNS),
            ]
        )
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()
