"""The Documentos page over a range larger than its table: the figures count every document, the table
shows the newest ones and says so; a link can carry the range (``?desde=&hasta=``)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import APP_PATH, data
from sunat.calendar import peru_today
from tests.dashboard.conftest import Issued
from tests.dashboard.test_app import TIMEOUT, app, texts


def test_the_table_shows_the_newest_documents_and_the_figures_count_all(
    tenants: Path, issued: Issued, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dashboard import session

    full = app().dataframe[0].value
    monkeypatch.setattr(data, "TABLE_ROWS", 3)
    session.load_range.clear()  # the range's figures were kept with the whole table
    session.synced_range.clear()
    at = app()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert list(table["number"]) == list(full["number"])[:3]  # the newest, in the page's order
    count = len(full)
    assert count > 3
    assert at.subheader[0].value == f"{count:,} documentos"
    assert {m.label: m.value for m in at.metric}["Documentos"] == f"{count:,}"
    assert "La tabla muestra los 3 más recientes" in texts(at.caption)


def _linked(desde: str, hasta: str) -> AppTest:
    at = AppTest.from_file(str(APP_PATH), default_timeout=TIMEOUT)
    at.query_params["desde"], at.query_params["hasta"] = desde, hasta
    at.run()
    return at.switch_page("views/documents.py").run()


def test_a_link_carries_the_range(tenants: Path, issued: Issued) -> None:
    today = peru_today()
    week = today - dt.timedelta(days=6)
    at = _linked(week.isoformat(), today.isoformat())
    assert not at.exception, at.exception
    assert tuple(at.date_input(key="docs_range").value) == (week, today)


@pytest.mark.parametrize(
    ("desde", "hasta"), [("2026-13-01", "2026-12-31"), ("ayer", ""), ("2026-12-31", "2026-01-01")]
)
def test_a_bad_link_falls_back_to_the_last_30_days(
    tenants: Path, issued: Issued, desde: str, hasta: str
) -> None:
    at = _linked(desde, hasta)
    assert not at.exception, at.exception
    assert tuple(at.date_input(key="docs_range").value) == data.default_range()
