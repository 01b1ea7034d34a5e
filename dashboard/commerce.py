"""The figures of the Análisis comercial page, from what the connector lists (no HTTP, no Streamlit).

* **Sales** are the documents of :mod:`analysis.sales` (its rules: rejected and voided documents do
  not count, credit notes subtract, currencies consolidated in soles at each document's rate) plus the
  sale notes that did not become a document yet: a converted note is counted once, by its factura or
  boleta. Notes have no exchange rate in their rows, so a note in dollars is left out of the soles
  figures and named, as a document without rate is.
* **Stock valuation**: each product's stock in each warehouse times its purchase (cost) price and its
  sale price, per currency of the product; money in :class:`~decimal.Decimal`, rounded to the cent.
* **Quotations converted versus open**: counts and amounts per currency.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from analysis.sales import Sale, by_customer, group_totals, product_totals, sales_of
from connector.items import Product
from connector.quotations import QuotationRecord
from connector.sale_notes import SaleNoteRecord
from dashboard.data import CURRENCY_SYMBOLS
from sunat.money import round2

#: The document type the sales figures give a sale note (SUNAT's code for internal documents is 80).
SALE_NOTE_TYPE = "80"
ZERO = Decimal(0)


def note_sales(notes: Iterable[SaleNoteRecord]) -> list[Sale]:
    """The sale notes not converted into a document, as :class:`~analysis.sales.Sale` (counted, adding)."""
    rows: list[dict[str, Any]] = []
    for note in notes:
        if note.converted:
            continue
        row = {key: value for key, value in note.raw.items() if not isinstance(value, list | dict)}
        row |= {
            "number": note.number,
            "document_type_id": SALE_NOTE_TYPE,
            "state_type_id": "01",
            "items": list(note.lines) if note.lines else None,
        }
        rows.append(row)
    return sales_of(rows)


@dataclass(frozen=True)
class SalesView:
    """Sales by product and by customer (soles) and what was left out."""

    products: list[Any]
    customers: list[Any]
    without_lines: int
    unconverted: list[str]


def sales_view(documents: Sequence[Sale], notes: Iterable[SaleNoteRecord], top: int) -> SalesView:
    """The ``top`` products and customers of the documents and the unconverted notes, largest first."""
    sales = [*documents, *note_sales(notes)]
    products, without_lines, left_products = product_totals(sales)
    groups, left_customers = group_totals(sales, by_customer)
    best = sorted(groups, key=lambda g: g.amounts.value, reverse=True)[:top]
    unconverted = sorted(set(left_products) | set(left_customers))
    return SalesView(list(products[:top]), best, without_lines, unconverted)


@dataclass(frozen=True)
class StockValue:
    """One product's stock in one warehouse, valued at cost and at sale price (its currency)."""

    code: str
    description: str
    warehouse: str
    currency: str
    stock: Decimal
    cost: Decimal
    price: Decimal

    @property
    def at_cost(self) -> Decimal:
        return round2(self.stock * self.cost)

    @property
    def at_price(self) -> Decimal:
        return round2(self.stock * self.price)


def stock_values(products: Iterable[Product]) -> list[StockValue]:
    """Every product with stock above zero, per warehouse (the product's total when it lists none)."""
    out = []
    for product in products:
        places = [(w.description or str(w.warehouse_id), w.stock) for w in product.warehouses]
        for warehouse, stock in places or [("", product.stock)]:
            if stock > 0:  # a product never stocked (or sold out) has nothing to value
                out.append(
                    StockValue(
                        product.code,
                        product.description,
                        warehouse,
                        product.currency or "PEN",
                        stock,
                        product.purchase_price,
                        product.sale_price,
                    )
                )
    return out


def stock_frame(values: Sequence[StockValue]) -> pd.DataFrame:
    """The valuation table, the largest value at cost first."""
    ordered = sorted(values, key=lambda v: (v.at_cost, v.at_price), reverse=True)
    return pd.DataFrame(
        {
            "Código": [v.code for v in ordered],
            "Producto": [v.description for v in ordered],
            "Almacén": [v.warehouse for v in ordered],
            "Moneda": [v.currency for v in ordered],
            "Stock": [float(v.stock) for v in ordered],
            "Costo unitario": [float(v.cost) for v in ordered],
            "Precio de venta": [float(v.price) for v in ordered],
            "Valor al costo": [float(v.at_cost) for v in ordered],
            "Valor a precio de venta": [float(v.at_price) for v in ordered],
        }
    )


def stock_totals(values: Iterable[StockValue]) -> dict[tuple[str, str], tuple[Decimal, Decimal]]:
    """``(warehouse, currency) -> (value at cost, value at sale price)``."""
    totals: dict[tuple[str, str], tuple[Decimal, Decimal]] = {}
    for value in values:
        cost, price = totals.get((value.warehouse, value.currency), (ZERO, ZERO))
        totals[(value.warehouse, value.currency)] = (cost + value.at_cost, price + value.at_price)
    return totals


@dataclass(frozen=True)
class Conversion:
    """Quotations of one currency: how many and how much converted into sale notes, and still open."""

    currency: str
    converted: int
    converted_amount: Decimal
    open: int
    open_amount: Decimal

    @property
    def rate(self) -> float | None:
        """The share of quotations converted (``None`` without quotations)."""
        total = self.converted + self.open
        return self.converted / total if total else None


def conversions(quotations: Iterable[QuotationRecord]) -> list[Conversion]:
    """Converted versus open quotations per currency (soles first)."""
    parts: dict[str, list[Any]] = defaultdict(lambda: [0, ZERO, 0, ZERO])
    for record in quotations:
        entry = parts[record.currency or "PEN"]
        slot = 0 if record.converted else 2
        entry[slot] += 1
        entry[slot + 1] += record.total
    order = sorted(parts, key=lambda c: (c != "PEN", c))
    return [Conversion(c, *parts[c]) for c in order]


#: How the quotations chart names a currency.
CURRENCY_NAMES = {"PEN": "Soles (S/)", "USD": "Dólares (US$)"}


def conversion_figure(rows: Sequence[Conversion]) -> go.Figure:
    """Amounts of converted and open quotations per currency (grouped bars)."""
    fig = go.Figure()
    # each currency is its own group, named by its symbol: the axis reads whole amounts ("25,000", not
    # "25k"), in the currency under each group
    currencies = [CURRENCY_NAMES.get(r.currency, r.currency) for r in rows]
    symbols = [CURRENCY_SYMBOLS.get(r.currency, r.currency) for r in rows]
    fig.add_bar(
        name="Convertidas",
        x=currencies,
        y=[float(r.converted_amount) for r in rows],
        marker_color="#27ae60",
        customdata=list(zip(symbols, [r.converted for r in rows], strict=True)),
        hovertemplate="%{customdata[0]} %{y:,.2f} · %{customdata[1]} cotizaciones<extra>Convertidas</extra>",
    )
    fig.add_bar(
        name="Abiertas",
        x=currencies,
        y=[float(r.open_amount) for r in rows],
        marker_color="#f2c94c",
        customdata=list(zip(symbols, [r.open for r in rows], strict=True)),
        hovertemplate="%{customdata[0]} %{y:,.2f} · %{customdata[1]} cotizaciones<extra>Abiertas</extra>",
    )
    fig.update_yaxes(tickformat=",.0f", title_text="Importe (en la moneda de cada grupo)")
    if len(set(symbols)) == 1:  # one currency: its symbol on every tick
        fig.update_yaxes(tickprefix=f"{symbols[0]} ", title_text=None)
    fig.update_layout(
        barmode="group",
        title={"text": "Cotizaciones convertidas y abiertas (importe)", "x": 0, "xanchor": "left"},
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        height=340,
        separators=".,",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1},
    )
    return fig


def stock_figure(values: Sequence[StockValue], n: int = 10) -> go.Figure:
    """The ``n`` products with the largest stock value at cost (in soles products only)."""
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for value in values:
        if value.currency == "PEN":
            totals[value.description or value.code] += value.at_cost
    best = sorted(totals.items(), key=lambda item: item[1], reverse=True)[:n][::-1]
    fig = go.Figure(
        go.Bar(
            x=[float(amount) for _name, amount in best],
            y=[name[:30] for name, _amount in best],
            orientation="h",
            marker_color="#9b51e0",
            hovertemplate="%{y}<br>S/ %{x:,.2f}<extra></extra>",
        )
    )
    fig.update_xaxes(tickprefix="S/ ", tickformat=",.0f")
    fig.update_layout(
        title={"text": "Valor del stock al costo (S/)", "x": 0, "xanchor": "left"},
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        height=340,
        showlegend=False,
        separators=".,",
    )
    return fig
