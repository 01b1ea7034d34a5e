"""Documentos' CSV and Excel read back: the figures of the page's cards row by row and in a totals row
(each document in soles at its own rate, credit notes negative, voided and rejected out), the exchange
rate, ICBPER and the modified document; dates dd/mm/yyyy for the accountant, ISO in the data sheet."""

from __future__ import annotations

import io
from decimal import Decimal as D

import openpyxl
import pandas as pd

from analysis.sales import sales_of, summarize
from dashboard import exports, figures
from tests.analysis.test_sales import ROWS

NOTE = {**ROWS[2], "affected_document": {"document_type_id": "01", "series": "F001", "number": 1}}
LISTED = [*ROWS[:2], NOTE, *ROWS[3:]]


def _cards() -> dict[str, str]:
    return {k.label: k.value for k in figures.kpis(summarize(sales_of(LISTED)))}


def test_the_excel_reproduces_the_cards_row_by_row_and_in_its_totals_row() -> None:
    book = openpyxl.load_workbook(io.BytesIO(exports.excel_bytes(LISTED)))
    sheet = book["Documentos"]
    rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
    header, body, total = rows[0], rows[1:-1], rows[-1]
    assert tuple(header) == exports.COLUMNS and len(body) == len(LISTED)
    at = {name: header.index(name) for name in header}
    by_number = {row[at["Número"]]: row for row in body}
    cards = _cards()
    # the totals row is the cards, to the cent
    assert total[at["Número"]] == "TOTAL (7 en las cifras)"
    for card, column in (
        ("Valor de venta (sin IGV)", "Valor de venta (S/)"),
        ("IGV", "IGV (S/)"),
        ("ICBPER", "ICBPER (S/)"),
        ("Importe total", "Total (S/)"),
    ):
        assert figures.money(D(str(total[at[column]])).quantize(D("0.01"))) == cards[card], card
        counted = sum(D(str(row[at[column]])) for row in body if row[at[column]] is not None)
        assert counted.quantize(D("0.01")) == D(str(total[at[column]])).quantize(D("0.01")), column
    # a credit note is negative and names what it modifies; dollars at their own rate; ICBPER kept
    note = by_number["FC01-1"]
    assert note[at["Total (S/)"]] == -23.6 and note[at["Doc. modificado"]] == "F001-1"
    dollars = by_number["F001-4"]
    assert dollars[at["Tipo de cambio"]] == 3.725 and dollars[at["Total (S/)"]] == 2197.75
    assert by_number["B001-1"][at["ICBPER (S/)"]] == 0.5
    # voided, rejected, and dollars without a rate: listed, out of the figures, saying why
    assert by_number["F001-2"][at["En las cifras"]] == "No (anulado)"
    assert by_number["F001-3"][at["En las cifras"]] == "No (rechazado)"
    assert by_number["F001-5"][at["En las cifras"]] == "No (sin tipo de cambio)"
    assert by_number["F001-2"][at["Total (S/)"]] is None
    # dates are dates shown dd/mm/yyyy; amounts formatted
    cell = sheet.cell(row=2, column=at["Fecha"] + 1)
    assert cell.is_date and cell.number_format == "DD/MM/YYYY"
    assert sheet.cell(row=2, column=at["Total (S/)"] + 1).number_format == "#,##0.00"
    # the machine-readable sheet beside: ISO dates, codes, no totals row
    data = [[cell.value for cell in row] for row in book["Datos"].iter_rows()]
    assert tuple(data[0]) == exports.DATA_COLUMNS and len(data) == len(LISTED) + 1
    machine = {row[1]: row for row in data[1:]}
    assert machine["FC01-1"][0] == "2026-03-05" and machine["FC01-1"][2] == "07"
    assert machine["F001-2"][6] == "11" and machine["F001-2"][7] == 0 and machine["F001-1"][7] == 1


def test_the_csv_is_the_accountants_sheet_with_its_totals_row() -> None:
    content = exports.csv_bytes(LISTED)
    assert content.startswith("\ufeff".encode())
    back = pd.read_csv(io.BytesIO(content), encoding="utf-8-sig", dtype=str, keep_default_na=False)
    assert tuple(back.columns) == exports.COLUMNS and len(back) == len(LISTED) + 1
    first = back[back["Número"] == "F001-1"].iloc[0]
    assert (first["Fecha"], first["Total (S/)"], first["Estado"]) == ("05/03/2026", "118.00", "Aceptado")
    note = back[back["Número"] == "FC01-1"].iloc[0]
    assert (note["Total (S/)"], note["Doc. modificado"], note["Tipo"]) == (
        "-23.60",
        "F001-1",
        "Nota de crédito",
    )
    total = back.iloc[-1]
    cards = _cards()
    assert figures.money(D(total["Total (S/)"])) == cards["Importe total"]
    assert figures.money(D(total["IGV (S/)"])) == cards["IGV"]
    assert back[back["Número"] == "F001-4"].iloc[0]["Tipo de cambio"] == "3.725"


def test_the_pages_export_of_a_stored_range_totals_the_cards_the_page_computes_in_sql() -> None:
    """Documentos' cards come from SQL over the store (``summarize_cells``); its export from the same
    scope's rows (``Scope.rows``): the totals row is the cards."""
    import datetime as dt

    from analysis.sales import sales_cells, summarize_cells
    from connector.store import LocalStore
    from dashboard.data import Scope

    with LocalStore.holding([{**r, "external_id": f"id-{i}"} for i, r in enumerate(LISTED)]) as store:
        scope = Scope(store, dt.date(2026, 3, 1), dt.date(2026, 3, 31))
        cells = sales_cells(scope.run, scope.source, scope.parameters)
        cards = summarize_cells(cells, scope.run, scope.source, scope.parameters).soles
        rows = scope.rows()
    assert len(rows) == len(LISTED)
    back = pd.read_csv(io.BytesIO(exports.csv_bytes(rows)), encoding="utf-8-sig", dtype=str)
    total = back.iloc[-1]
    assert (D(total["Valor de venta (S/)"]), D(total["IGV (S/)"]), D(total["Total (S/)"])) == (
        cards.value,
        cards.igv,
        cards.total,
    )


def test_exports_of_nothing_have_their_headers_and_a_zero_totals_row() -> None:
    back = pd.read_csv(io.BytesIO(exports.csv_bytes([])), encoding="utf-8-sig", dtype=str)
    assert tuple(back.columns) == exports.COLUMNS and list(back["Total (S/)"]) == ["0.00"]
    book = openpyxl.load_workbook(io.BytesIO(exports.excel_bytes([])))
    assert book["Documentos"].max_row == 2 and book["Datos"].max_row == 1
