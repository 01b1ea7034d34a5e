"""The dashboard's chart component (``dashboard/charts.py``) without a browser: what it sends for a
figure, and that the vendored plotly.js bundle is the one plotly Python expects and draws every trace
type the dashboard builds. (That it draws in Chromium, once per tab: ``test_browser.py`` and
``test_browser_pages.py``.)"""

from __future__ import annotations

import ast
import datetime as dt
import json
import re
from decimal import Decimal
from pathlib import Path

import plotly.graph_objects as go
import plotly.offline
from plotly.basedatatypes import BaseTraceType

from dashboard import charts

DASHBOARD = Path(charts.__file__).parent
BUNDLE = DASHBOARD / charts.ASSETS / "plotly-basic.min.js"


def test_the_spec_is_plotlys_json_in_our_template_and_leaves_the_figure_alone() -> None:
    figure = go.Figure(
        go.Bar(
            x=[dt.date(2026, 12, 1), dt.date(2026, 12, 2)], y=[Decimal("10.50"), Decimal("-2.25")], name="F"
        )
    )
    figure.update_layout(title={"text": "Ventas"}, height=340)
    before = figure.to_plotly_json()

    sent = json.loads(charts.spec(figure))

    assert sent["layout"]["template"] == charts.TEMPLATE.to_plotly_json()
    assert sent["layout"]["title"]["text"] == "Ventas" and sent["layout"]["height"] == 340
    (bar,) = sent["data"]
    assert bar["type"] == "bar" and bar["name"] == "F"
    assert bar["x"] == ["2026-12-01", "2026-12-02"] and bar["y"] == [10.5, -2.25]  # plotly's own encoding
    assert figure.to_plotly_json() == before  # the caller's figure keeps its own template


def test_what_a_figure_sets_itself_wins_over_the_template() -> None:
    figure = go.Figure(go.Bar(x=["a"], y=[1], marker_color="#27ae60"))
    figure.update_layout(paper_bgcolor="#000000")
    sent = json.loads(charts.spec(figure))
    assert sent["data"][0]["marker"]["color"] == "#27ae60"
    assert sent["layout"]["paper_bgcolor"] == "#000000"  # the template only fills what is not set
    assert sent["layout"]["template"]["layout"]["paper_bgcolor"] == "#ffffff"


def test_show_outside_a_streamlit_app_draws_nothing_and_does_not_fail() -> None:
    charts.show(go.Figure(go.Bar(x=["a"], y=[1])), key="bare")


def test_the_bundle_is_the_plotly_js_that_plotly_python_expects() -> None:
    header = BUNDLE.read_text(encoding="utf-8")[:200]
    version = re.search(r"plotly\.js \(basic - minified\) v(\S+)", header)
    assert version is not None, header
    assert version.group(1) == plotly.offline.get_plotlyjs_version(), (
        "plotly Python was upgraded: vendor its plotly.js basic bundle (dashboard/chart_assets/README.md)"
    )
    assert (DASHBOARD / charts.ASSETS / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def _trace_types_built() -> set[str]:
    """The plotly trace types the dashboard's code constructs (``go.Bar(...)`` and the like)."""
    found = set()
    for path in DASHBOARD.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "go"
            ):
                kind = getattr(go, node.func.attr, None)
                if isinstance(kind, type) and issubclass(kind, BaseTraceType):
                    found.add(kind().type)
    return found


def test_the_bundle_draws_every_trace_type_the_dashboard_builds() -> None:
    in_bundle = set(re.findall(r'moduleType:"trace",name:"(\w+)"', BUNDLE.read_text(encoding="utf-8")))
    built = _trace_types_built()
    assert {"bar", "scatter", "pie"} <= built  # the scan sees the figures' traces
    assert built <= in_bundle, f"not in plotly.js's basic bundle: {sorted(built - in_bundle)}"
