"""The dashboard's charts: plotly figures drawn in the page by plotly.js's basic bundle.

Streamlit's ``st.plotly_chart`` loads the whole plotly.js (4.7 MB) in every new tab; our figures use bar,
scatter and pie traces only, which the basic bundle (1.2 MB, ``chart_assets/``, shipped with the package)
draws. :func:`show` renders a ``go.Figure`` (serialized with plotly's own JSON) through an
``st.components.v2`` component of ours mounted in the page itself (no iframe): its module and the bundle
are evaluated once per tab, however many charts the page has. :data:`TEMPLATE` is the figures' look in
Streamlit's light theme, in one place.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from streamlit.components.v2 import component
from streamlit.components.v2.manifest_scanner import ComponentConfig, ComponentManifest
from streamlit.runtime import Runtime

#: The component's name: ``<package>.<component>``, as Streamlit names the components of a package.
NAME = "facturador_kit.chart"
#: The folder (inside ``dashboard/``) Streamlit serves the component's files from.
ASSETS = "chart_assets"
#: What the component's element is marked with in the page (``data-testid``), for tests and benchmarks.
MARKER = "facturadorChart"
_MANIFEST = ComponentManifest(
    name=NAME.split(".")[0],
    version="1",
    components=[ComponentConfig(name=NAME.split(".")[1], asset_dir=ASSETS)],
)
_PACKAGE = Path(__file__).resolve().parent

# Streamlit's light theme: its text, grid and categorical colors, its font.
_TEXT = "#31333f"
_GRID = "#e6eaf1"
_AXIS = {
    "gridcolor": _GRID,
    "linecolor": _GRID,
    "zerolinecolor": "#d5dae5",
    "tickcolor": _GRID,
    "automargin": True,
    "title": {"font": {"color": "#808495", "size": 13}},
    "tickfont": {"color": "#808495", "size": 12},
}
#: The figures' look in Streamlit's light theme, their defaults: what a figure sets itself (its bars'
#: colors, its height) stays.
TEMPLATE = go.layout.Template(
    layout={
        "font": {"family": '"Source Sans", "Source Sans Pro", sans-serif', "color": _TEXT, "size": 14},
        "title": {"font": {"size": 16, "color": _TEXT}},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "colorway": [
            "#0068c9",
            "#83c9ff",
            "#ff2b2b",
            "#ffabab",
            "#29b09d",
            "#7defa1",
            "#ff8700",
            "#ffd16a",
            "#6d3fc0",
            "#d5dae5",
        ],
        "xaxis": _AXIS,
        "yaxis": _AXIS,
        "legend": {"font": {"color": _TEXT, "size": 13}},
        "hoverlabel": {"bgcolor": "#ffffff", "bordercolor": _GRID, "font": {"color": _TEXT, "size": 13}},
        "hovermode": "closest",
    }
)
_TEMPLATE_JSON = TEMPLATE.to_plotly_json()
_mount: Any = None


def spec(figure: go.Figure) -> str:
    """``figure`` as the chart draws it: plotly's JSON, with :data:`TEMPLATE` for its template (the
    figure itself is left as it was)."""
    figure_json = figure.to_plotly_json()
    figure_json.setdefault("layout", {})["template"] = _TEMPLATE_JSON
    return pio.to_json(figure_json, validate=False)


def _component() -> Any:
    """The component's mount command, its files registered on the running Streamlit runtime (each
    runtime has its registry: an ``AppTest`` starts one of its own)."""
    global _mount
    manager = Runtime.instance().bidi_component_registry
    if manager.get_component_asset_root(NAME) is None:
        manager.register_from_manifest(_MANIFEST, _PACKAGE)
    if _mount is None:
        _mount = component(NAME, js="chart.js", isolate_styles=False)
    return _mount


def show(figure: go.Figure, *, key: str, where: Any = None) -> None:
    """Draw ``figure`` as wide as its container, in ``where`` (a column, an ``st.empty()`` slot) or
    where the page is. ``key`` names the chart (one per page)."""
    if not Runtime.exists():
        return  # not in a Streamlit app (a bare import): nothing to draw on
    with where if where is not None else contextlib.nullcontext():
        _component()(key=key, data=spec(figure), width="stretch")
