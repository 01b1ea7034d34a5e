"""What the Retenciones / Percepciones page computes from the lists (kept out of the page script)."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

import pandas as pd
import plotly.graph_objects as go

from connector.withholding import WithholdingRecord

AMOUNT = {"retentions": "Retenido", "perceptions": "Percibido"}


def monthly(records: list[WithholdingRecord]) -> pd.DataFrame:
    """Accepted amounts per month (``AAAA-MM``), oldest first: the count and the total in soles."""
    totals: dict[str, list[Decimal]] = defaultdict(list)
    for record in records:
        if record.state_type_id in ("05", "07"):
            totals[record.date_of_issue.strftime("%Y-%m")].append(record.total)
    rows = [
        {"Mes": month, "Comprobantes": len(values), "Total": float(sum(values, Decimal(0)))}
        for month, values in sorted(totals.items())
    ]
    return pd.DataFrame(rows, columns=["Mes", "Comprobantes", "Total"])


def monthly_figure(frame: pd.DataFrame, family: str) -> go.Figure:
    fig = go.Figure(go.Bar(x=frame["Mes"], y=frame["Total"], name=AMOUNT[family]))
    fig.update_layout(
        title={"text": f"{AMOUNT[family]} por mes (S/)", "x": 0},
        height=300,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        separators=".,",
    )
    return fig
