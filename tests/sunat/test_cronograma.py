"""SUNAT's cronograma de obligaciones mensuales, read from ``sunat/data``."""

from __future__ import annotations

import datetime as dt

import pytest

from sunat.cronograma import (
    GOOD_TAXPAYERS,
    Schedule,
    ScheduleError,
    business_day,
    due_date,
    schedule,
    schedule_years,
)


def test_2026_is_published_with_its_source_and_flagged_unverified() -> None:
    assert 2026 in schedule_years()
    table = schedule(2026)
    assert len(table.periods) == 12
    assert table.columns == ("0", "1", "2-3", "4-5", "6-7", "8-9", GOOD_TAXPAYERS)
    assert "000281-2022/SUNAT" in table.source["rule"]
    assert table.verified is False  # the dates were not read from SUNAT's own text: said, not hidden
    assert "sin verificar" in table.source_text()


@pytest.mark.parametrize(
    ("ruc", "period", "expected", "column"),
    [
        ("20100066600", "2026-01", dt.date(2026, 2, 16), "0"),
        ("20100066611", "2026-01", dt.date(2026, 2, 17), "1"),
        ("20100066600", "2026-03", dt.date(2026, 4, 17), "0"),  # Holy Week's Thursday and Friday skipped
        ("20600000003", "2026-03", dt.date(2026, 4, 21), "2-3"),
        ("20600000009", "2026-11", dt.date(2026, 12, 24), "8-9"),
        ("7", "2026-06", dt.date(2026, 7, 21), "6-7"),
        ("20600000005", "202612", dt.date(2027, 1, 21), "4-5"),  # December falls due the next year
        ("20600000005", dt.date(2026, 10, 9), dt.date(2026, 11, 19), "4-5"),
    ],
)
def test_due_date_by_the_last_digit(ruc: str, period: object, expected: dt.date, column: str) -> None:
    found = due_date(ruc, period)  # type: ignore[arg-type]
    assert (found.date, found.column) == (expected, column)
    assert found.days_left(expected - dt.timedelta(days=3)) == 3


def test_good_taxpayers_have_one_later_date() -> None:
    found = due_date("20600000003", "2026-11", good_taxpayer=True)
    assert (found.date, found.column) == (dt.date(2026, 12, 28), GOOD_TAXPAYERS)
    assert found.date > due_date("20600000009", "2026-11").date


def test_every_date_follows_the_business_day_rule() -> None:
    """Each column falls on its business day of the month after the period (weekends and the table's
    national holidays skipped): the check that the transcribed dates hang together."""
    for year in schedule_years():
        table = schedule(year)
        if not table.business_day:
            continue
        for period, row in table.periods.items():
            year_, month = int(period[:4]), int(period[5:])
            following = (year_ + month // 12, month % 12 + 1)
            for column, day in row.items():
                assert (day.year, day.month) == following, (period, column)
                assert business_day(day, table.holidays) == table.business_day[column], (period, column, day)
            dates = [row[column] for column in table.columns]
            assert dates == sorted(dates) and len(set(dates)) == len(dates)


@pytest.mark.parametrize(
    ("ruc", "period", "message"),
    [
        ("2060000000", "2026-01", "11 digits"),
        ("20600000005", "2026-13", "YYYY-MM"),
        ("20600000005", "1999-01", "cronograma_1999.json"),
    ],
)
def test_bad_input_says_what_is_wrong(ruc: str, period: str, message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        due_date(ruc, period)


def test_a_malformed_table_is_refused() -> None:
    with pytest.raises(ScheduleError, match="lacks columns"):
        Schedule.from_json({"year": 2030, "columns": ["0", "1"], "periods": {"2030-01": {"0": "2030-02-14"}}})
    with pytest.raises(ScheduleError, match="not well formed"):
        Schedule.from_json({"year": 2030, "columns": ["0"], "periods": {"2030-01": {"0": "14/02/2030"}}})


def test_business_day_counts_weekdays_that_are_not_holidays() -> None:
    holidays = frozenset({dt.date(2026, 4, 2), dt.date(2026, 4, 3)})
    assert business_day(dt.date(2026, 4, 1), holidays) == 1
    assert business_day(dt.date(2026, 4, 6), holidays) == 2
    assert business_day(dt.date(2026, 4, 3), holidays) == 0
    assert business_day(dt.date(2026, 4, 4), holidays) == 0
