"""Unit tests of the dashboard's pure data functions (no Streamlit, no HTTP)."""

from __future__ import annotations

import json
from datetime import date

import pandas as pd
import pytest

from connector.frames import documents_frame
from dashboard import data


def row(
    number: str,
    *,
    day: str = "2026-11-02",
    doc_type: str = "01",
    customer: str = "EMPRESA XYZ S.A.",
    customer_number: str = "20601030013",
    currency: str = "PEN",
    total: float = 118.0,
    igv: float = 18.0,
    state: str = "05",
) -> dict[str, object]:
    """A list row as the service (or a real tenant) sends it."""
    series = number.split("-")[0]
    return {
        "id": abs(hash(number)) % 10_000,
        "external_id": f"ext-{number}",
        "date_of_issue": day,
        "number": number,
        "series": series,
        "document_type_id": doc_type,
        "document_type_description": data.type_label(doc_type),
        "customer_name": customer,
        "customer_number": customer_number,
        "currency_type_id": currency,
        "total_taxed": f"{total - igv:.2f}",
        "total_igv": f"{igv:.2f}",
        "total_exonerated": "0.00",
        "total_unaffected": "0.00",
        "total_exportation": "0.00",
        "total_free": "0.00",
        "total": f"{total:.2f}",
        "state_type_id": state,
        "state_type_description": data.state_label(state),
        "has_xml": True,
        "has_pdf": True,
        "has_cdr": state in ("05", "07", "09"),
    }


@pytest.fixture
def frame() -> pd.DataFrame:
    """Eight documents over three days: facturas, a boleta, notes, USD, a rejected and a voided one."""
    rows = [
        row("F001-1", day="2026-11-01", total=118.0, igv=18.0),
        row(
            "F001-2",
            day="2026-11-01",
            total=236.0,
            igv=36.0,
            customer="ACME PERU S.A.C.",
            customer_number="20100066603",
        ),
        row(
            "B001-1",
            day="2026-11-02",
            doc_type="03",
            total=59.0,
            igv=9.0,
            customer="Juan Pérez",
            customer_number="46027862",
            state="01",
        ),
        row("FC01-1", day="2026-11-02", doc_type="07", total=118.0, igv=18.0),
        row("FD01-1", day="2026-11-03", doc_type="08", total=11.8, igv=1.8, state="07"),
        row("F001-3", day="2026-11-03", total=1000.0, igv=152.54, state="09"),
        row("F001-4", day="2026-11-03", total=500.0, igv=76.27, state="11"),
        row(
            "F002-1",
            day="2026-11-03",
            currency="USD",
            total=100.0,
            igv=15.25,
            customer="ACME PERU S.A.C.",
            customer_number="20100066603",
        ),
    ]
    return documents_frame(rows)


def test_states_have_distinct_labels_and_colors() -> None:
    assert [s.label for s in data.STATES.values()] == [
        "Registrado",
        "Enviado",
        "Aceptado",
        "Observado",
        "Rechazado",
        "Anulado",
        "Por anular",
    ]
    assert list(data.STATES) == ["01", "03", "05", "07", "09", "11", "13"]
    for attribute in ("color", "badge"):
        values = [getattr(s, attribute) for s in data.STATES.values()]
        assert len(set(values)) == len(values), attribute
    assert data.state_label("05") == "Aceptado"
    assert data.state_label("99") == "Estado 99"
    assert data.state_label(None) == "Sin estado"
    assert data.state_color("99") == "#bdbdbd"


def test_default_range_is_the_last_30_days_inclusive() -> None:
    assert data.default_range(date(2026, 11, 30)) == (date(2026, 11, 1), date(2026, 11, 30))
    start, end = data.default_range()
    assert (end - start).days == 29


def test_filter_options_and_filters(frame: pd.DataFrame) -> None:
    options = data.filter_options(frame)
    assert options["document_types"] == ["01", "03", "07", "08"]
    assert options["series"] == ["B001", "F001", "F002", "FC01", "FD01"]
    assert options["currencies"] == ["PEN", "USD"]
    assert options["states"] == ["01", "05", "07", "09", "11"]

    assert len(data.apply_filters(frame, data.Filters())) == len(frame)
    assert set(data.apply_filters(frame, data.Filters(document_types=("03",)))["number"]) == {"B001-1"}
    assert set(data.apply_filters(frame, data.Filters(states=("09", "11")))["number"]) == {"F001-3", "F001-4"}
    assert set(data.apply_filters(frame, data.Filters(series=("F002",)))["number"]) == {"F002-1"}
    assert set(data.apply_filters(frame, data.Filters(currencies=("USD",)))["number"]) == {"F002-1"}
    by_name = data.apply_filters(frame, data.Filters(customer="  acme "))
    assert set(by_name["number"]) == {"F001-2", "F002-1"}
    by_number = data.apply_filters(frame, data.Filters(customer="4602786"))
    assert set(by_number["number"]) == {"B001-1"}
    combined = data.apply_filters(
        frame, data.Filters(document_types=("01",), currencies=("PEN",), states=("05",))
    )
    assert set(combined["number"]) == {"F001-1", "F001-2"}


def test_state_totals_use_state_colors(frame: pd.DataFrame) -> None:
    states = data.state_totals(frame, "PEN")
    assert list(states["label"]) == ["Registrado", "Aceptado", "Observado", "Rechazado", "Anulado"]
    assert list(states["documents"]) == [1, 3, 1, 1, 1]
    figure = data.state_totals_figure(frame, "PEN")
    (bar,) = figure.data
    assert list(bar.marker.color) == [data.STATES[c].color for c in ("01", "05", "07", "09", "11")]
    assert list(bar.y) == [1, 3, 1, 1, 1] and "Documentos por estado" in figure.layout.title.text


def test_figures_of_an_empty_range_say_so() -> None:
    empty = data.empty_documents()
    for build in (data.state_totals_figure,):
        figure = build(empty, None)
        assert "Sin documentos" in json.dumps(
            figure.to_plotly_json()["layout"]["annotations"], ensure_ascii=False
        )


def test_table_frame_is_newest_first_with_spanish_labels(frame: pd.DataFrame) -> None:
    table = data.table_frame(frame)
    assert list(table["number"][:2]) == ["FD01-1", "F002-1"]
    assert table.loc[table["number"] == "B001-1", "state"].item() == ["Registrado"]
    assert table.loc[table["number"] == "FC01-1", "document_type"].item() == "Nota de crédito"
    assert table["total"].dtype == "float64"


def test_labels() -> None:
    assert data.labels_for(["05"], "state") == {"05": "Aceptado"}  # states by their name, never "05"
    assert data.labels_for(["07"], "type") == {"07": "Nota de crédito"}
    assert data.ordered_states(["09", "01", "XX"]) == ["01", "09", "XX"]
    assert (
        data.document_label(
            {"number": "F001-1", "customer_name": "ACME", "currency_type_id": "PEN", "total": 1234.5}
        )
        == "F001-1 · ACME · S/ 1,234.50"
    )


def test_sent_voiding_and_voided_states_are_shown_distinctly() -> None:
    """The states summaries and voiding bring (03 declared, 13 being voided, 11 voided) each have their
    own label, color and badge in the table, the filters, the chart and the exports; 11 leaves sales."""
    rows = [
        row("B001-1", doc_type="03", state="03", total=59.0, igv=9.0),
        row("B001-2", doc_type="03", state="13", total=59.0, igv=9.0),
        row("F001-1", state="13"),
        row("F001-2", state="11"),
        row("F001-3", state="05"),
    ]
    frame = documents_frame(rows)
    table = data.table_frame(frame)
    shown = dict(zip(table["number"], table["state"], strict=True))
    assert shown == {
        "B001-1": ["Enviado"],
        "B001-2": ["Por anular"],
        "F001-1": ["Por anular"],
        "F001-2": ["Anulado"],
        "F001-3": ["Aceptado"],
    }
    styles = [data.STATES[code] for code in ("03", "13", "11")]
    assert (
        len({s.label for s in styles})
        == len({s.color for s in styles})
        == len({s.badge for s in styles})
        == 3
    )
    options = data.filter_options(frame)["states"]
    assert data.ordered_states(options) == ["03", "05", "11", "13"]
    assert data.labels_for(["03", "11", "13"], "state") == {
        "03": "Enviado",
        "11": "Anulado",
        "13": "Por anular",
    }
    only_voided = data.apply_filters(frame, data.Filters(states=("11",)))
    assert list(only_voided["number"]) == ["F001-2"]
    (bar,) = data.state_totals_figure(frame, "PEN").data
    assert list(bar.x) == ["Enviado", "Aceptado", "Anulado", "Por anular"]
    assert list(bar.marker.color) == [data.STATES[c].color for c in ("03", "05", "11", "13")]
    assert list(bar.y) == [1, 1, 1, 2]  # documents per state: counts, never amounts across currencies
    export = data.export_frame(frame)
    assert set(export["Estado"]) == {"Enviado", "Por anular", "Anulado", "Aceptado"}


def test_documents_sort_by_date_series_and_numeric_correlative() -> None:
    """F001-6 no longer sits between F001-638 and F001-552 (the numbers sorted as text)."""
    rows = [
        {"number": n, "series": n.split("-")[0], "correlative": int(n.split("-")[1]), "date_of_issue": d}
        for n, d in (
            ("F001-6", "2026-11-20"),
            ("F001-638", "2026-11-21"),
            ("F001-552", "2026-11-21"),
            ("F001-7", "2026-11-21"),
            ("B001-90", "2026-11-21"),
        )
    ]
    frame = pd.DataFrame(rows)
    frame["date_of_issue"] = pd.to_datetime(frame["date_of_issue"])
    for column in (
        "document_type_id",
        "customer_name",
        "customer_number",
        "currency_type_id",
        "state_type_id",
    ):
        frame[column] = ""
    frame["document_type_description"] = ""
    frame["external_id"] = ""
    table = data.table_frame(frame)
    assert list(table["number"]) == ["F001-638", "F001-552", "F001-7", "B001-90", "F001-6"]
