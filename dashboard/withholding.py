"""What the Retenciones / Percepciones page computes from the lists (kept out of the page script)."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

import pandas as pd
import plotly.graph_objects as go

from connector.withholding import WithholdingRecord

AMOUNT = {"retentions": "Retenido", "perceptions": "Percibido"}


def monthly(records: list[WithholdingRecord]) -> pd.DataFrame:
    """Accepted amounts per month (``MM/AAAA``), oldest first: the count and the total in soles."""
    totals: dict[tuple[int, int], list[Decimal]] = defaultdict(list)
    for record in records:
        if record.state_type_id in ("05", "07"):
            totals[(record.date_of_issue.year, record.date_of_issue.month)].append(record.total)
    rows = [
        {"Mes": f"{month:02d}/{year}", "Comprobantes": len(values), "Total": float(sum(values, Decimal(0)))}
        for (year, month), values in sorted(totals.items())
    ]
    return pd.DataFrame(rows, columns=["Mes", "Comprobantes", "Total"])


def monthly_figure(frame: pd.DataFrame, family: str) -> go.Figure:
    """Bars of the amount per month; the axis is the months' names (as categories: plotly would read
    ``2026-10`` as a date and tick it at "23:59:59.9996 Oct 31")."""
    fig = go.Figure(
        go.Bar(
            x=frame["Mes"],
            y=frame["Total"],
            name=AMOUNT[family],
            customdata=frame["Comprobantes"],
            hovertemplate="%{x}<br>S/ %{y:,.2f} · %{customdata} comprobantes<extra></extra>",
        )
    )
    fig.update_layout(
        title={"text": f"{AMOUNT[family]} por mes (S/)", "x": 0},
        height=300,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"type": "category"},
        yaxis={"tickprefix": "S/ ", "tickformat": ",.2f", "rangemode": "tozero"},
    )
    return fig
