"""Which month's register a document goes to: its own month's, whatever time its row was inserted,
unless the accountant had closed that month before it arrived (``connector.closes``). Times are Lima's
as real tenants write them (``"2026-10-31 20:15:00"``), or carry their offset; every clock is fixed."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from analysis.register import Period, SalesRegister, sales_register
from connector.closes import MonthClose, MonthCloses
from connector.documents import ChangesPage
from connector.store import LocalStore, closes_path, store_path

RUC, NAME = "20123456786", "EMPRESA DEMO S.A.C."
UTC = dt.UTC


def row(
    number: str, day: str, created: str, *, state: str = "05", updated: str | None = None
) -> dict[str, Any]:
    series, correlative = number.split("-")
    return {
        "external_id": f"ext-{number}",
        "id": int(correlative),
        "number": number,
        "series": series,
        "correlative": int(correlative),
        "date_of_issue": day,
        "document_type_id": "01" if series.startswith("F") else "03",
        "state_type_id": state,
        "currency_type_id": "PEN",
        "exchange_rate_sale": "1.000",
        "customer_identity_document_type_id": "6",
        "customer_number": "20555555556",
        "customer_name": "CLIENTE DEMO S.A.",
        "has_cdr": True,
        "created_at": created,
        "updated_at": updated or created,
        "total_taxed": "100.00",
        "total_igv": "18.00",
        "total": "118.00",
    }


def lines(rows: list[dict[str, Any]], period: str, closes: Any = None) -> list[tuple[str, str, str]]:
    """(number, field 1, state) of each PLE line of ``period``."""
    register = SalesRegister.build(rows, period, ruc=RUC, name=NAME, closes=closes)
    return [(f"{r[6]}-{r[7]}", r[0], r[34]) for r in register.ple_rows()]


# a factura dated 31/10 at 20:15 Lima: 01/11 01:15 UTC
EVENING = row("F001-1", "2026-10-31", "2026-10-31 20:15:00")


def test_a_factura_of_31_october_at_20_15_lima_is_octobers() -> None:
    assert lines([EVENING], "2026-10") == [("F001-1", "20261000", "1")]
    assert lines([EVENING], "2026-11") == []


@pytest.mark.parametrize(
    "stamp", ["2026-11-01T01:15:00+00:00", "2026-11-01 01:15:00Z", "2026-10-31T20:15:00-05:00"]
)
def test_a_time_carrying_its_offset_is_read_as_limas(stamp: str) -> None:
    """The same moment written with its offset is Lima's 31/10 20:15: before October's close at 00:30 of
    01/11 (read as 01:15 it would have arrived after it, and gone to November)."""
    closes = {"2026-10": dt.datetime(2026, 11, 1, 0, 30)}
    arrived = row("F001-1", "2026-10-31", stamp)
    assert lines([arrived], "2026-10", closes) == [("F001-1", "20261000", "1")]
    assert lines([arrived], "2026-11", closes) == []


def test_registered_days_later_without_a_close_it_stays_in_its_month() -> None:
    """The defect of issue 31: documents of 28-30/11 registered in December were December's state 8."""
    late = row("F001-2", "2026-11-29", "2026-12-03 09:00:00")
    assert lines([late], "2026-11") == [("F001-2", "20261100", "1")]
    assert lines([late], "2026-12") == []


def test_a_document_that_arrives_after_its_month_was_closed_goes_to_the_next_as_state_8() -> None:
    closes = {"2026-10": dt.datetime(2026, 11, 5, 18, 0)}
    before = row("F001-3", "2026-10-30", "2026-11-05 17:59:59")
    after = row("F001-4", "2026-10-30", "2026-11-05 18:00:01")
    assert lines([before, after], "2026-10", closes) == [("F001-3", "20261000", "1")]
    assert lines([before, after], "2026-11", closes) == [("F001-4", "20261000", "8")]


def test_a_late_document_goes_to_the_first_month_still_open() -> None:
    """October and November closed before it arrived: December's state 8 (November's file was filed)."""
    closes = {"2026-10": dt.datetime(2026, 11, 10, 9, 0), "2026-11": dt.datetime(2026, 12, 2, 9, 0)}
    late = row("F001-5", "2026-10-28", "2026-12-03 10:00:00")
    assert lines([late], "2026-10", closes) == []
    assert lines([late], "2026-11", closes) == []
    assert lines([late], "2026-12", closes) == [("F001-5", "20261000", "8")]


def test_new_year() -> None:
    """A boleta of 31/12 at 23:30 Lima (01/01 04:30 UTC) is December's; after December was closed, a
    document of 31/12 that arrives goes to January as state 8."""
    night = row("B001-1", "2026-12-31", "2027-01-01T04:30:00+00:00")
    assert lines([night], "2026-12") == [("B001-1", "20261200", "1")]
    assert lines([night], "2027-01") == []
    closes = MonthCloses(closes=iter([MonthClose("2026-12", dt.datetime(2027, 1, 8, 12, 0))]))
    arrived = row("B001-2", "2026-12-31", "2027-01-08 12:30:00")
    assert lines([night, arrived], "2026-12", closes) == [("B001-1", "20261200", "1")]
    assert lines([night, arrived], "2027-01", closes) == [("B001-2", "20261200", "8")]


def test_a_void_after_the_close_is_corrected_in_the_next_open_month() -> None:
    closes = {"2026-10": dt.datetime(2026, 11, 5, 18, 0)}
    voided_after = row(
        "F001-6", "2026-10-20", "2026-10-20 10:00:00", state="11", updated="2026-11-06 09:00:00"
    )
    voided_before = row(
        "F001-7", "2026-10-21", "2026-10-21 10:00:00", state="11", updated="2026-11-04 09:00:00"
    )
    both = [voided_after, voided_before]
    assert lines(both, "2026-10", closes) == [("F001-6", "20261000", "1"), ("F001-7", "20261000", "2")]
    assert lines(both, "2026-11", closes) == [("F001-6", "20261000", "9")]
    # October still open when both were voided: both voided in October's register, nothing in November
    assert lines(both, "2026-10") == [("F001-6", "20261000", "2"), ("F001-7", "20261000", "2")]
    assert lines(both, "2026-11") == []


# ---------------------------------------------------------------------------------------- the closes


def test_closes_are_kept_in_a_file_and_read_back(tmp_path: Path) -> None:
    path = closes_path("http://tenant.test/t/x", tmp_path)
    assert path.parent == tmp_path and path.name.endswith(".closes.json")
    assert path == MonthCloses.beside(store_path("http://tenant.test/t/x", tmp_path)).path
    closes = MonthCloses(path)
    aware = dt.datetime(2026, 11, 12, 14, 30, tzinfo=UTC)  # 09:30 in Lima
    made = closes.close("2026-10", aware, source="register", note="PLE presentado")
    assert made.closed_at == dt.datetime(2026, 11, 12, 9, 30)
    again = closes.close("2026-10", dt.datetime(2026, 11, 20, 9, 0))  # closed once: the first close stays
    assert again == made
    read = MonthCloses(path)
    assert dict(read) == {"2026-10": dt.datetime(2026, 11, 12, 9, 30)}
    assert read.record("2026-10") == made and read.record("2026-11") is None
    assert '"closed_at": "2026-11-12T09:30:00-05:00"' in path.read_text()
    assert read.reopen("2026-10") == made and dict(MonthCloses(path)) == {}


def test_a_close_before_the_month_ends_or_a_bad_period_is_refused(tmp_path: Path) -> None:
    closes = MonthCloses(tmp_path / "c.json")
    with pytest.raises(ValueError, match="has not ended"):
        closes.close("2026-10", dt.datetime(2026, 10, 31, 23, 59))
    with pytest.raises(ValueError, match="period"):
        closes.close("2026-13", dt.datetime(2027, 1, 1))
    with pytest.raises(ValueError, match="source"):
        closes.close("2026-10", dt.datetime(2026, 11, 1), source=" ")
    assert not (tmp_path / "c.json").exists()  # nothing written
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="cannot be read"):
        MonthCloses(tmp_path / "bad.json")


class _Documents:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    def changes(self, start: dt.date, end: dt.date, **_options: Any) -> ChangesPage:
        chosen = [r for r in self.rows if start.isoformat() <= r["date_of_issue"] <= end.isoformat()]
        return ChangesPage(chosen, extended=False)

    def download_xml(self, external_id: str) -> bytes:
        from connector.errors import NotFoundError

        raise NotFoundError("sin XML (prueba)", status=404)


class _Tenant:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.base_url = "http://tenant.test/t/x"
        self.documents = _Documents(rows)
        self.progress = None


def test_the_stored_register_reads_the_closes_beside_the_store(tmp_path: Path) -> None:
    """A register from the local store takes the closes kept beside it, and reads only the earlier rows
    that can make a line: the same lines as the register of the whole list."""
    rows = [
        row("F001-1", "2026-10-31", "2026-10-31 20:15:00"),
        row("F001-2", "2026-10-30", "2026-11-06 10:00:00"),  # after October's close: November's 8
        row("F001-3", "2026-10-29", "2026-11-02 10:00:00"),  # before it: October's
        row("F001-4", "2026-10-10", "2026-10-10 10:00:00", state="11", updated="2026-11-07 10:00:00"),
        row("F001-5", "2026-11-03", "2026-11-03 10:00:00"),
    ]
    tenant = _Tenant(rows)
    path = tmp_path / "store.duckdb"
    MonthCloses.beside(path).close("2026-10", dt.datetime(2026, 11, 5, 18, 0), source="register")
    with LocalStore(path, tenant) as store:  # type: ignore[arg-type]
        store.sync("2026-09-01", "2026-11-30", today=dt.date(2026, 12, 5))
        reader = store.reading(tenant)  # type: ignore[arg-type]
        november = sales_register(reader, "2026-11")
        october = sales_register(reader, "2026-10")
        unclosed = sales_register(reader, "2026-11", closes={})
    assert [(e.source, e.state) for e in november.entries] == [
        ("F001-5", "1"),
        ("F001-4", "9"),
        ("F001-2", "8"),
    ]
    assert sorted((e.source, e.state) for e in october.entries if e.in_ple) == [
        ("F001-1", "1"), ("F001-3", "1"), ("F001-4", "1"),
    ]  # fmt: skip
    assert [(e.source, e.state) for e in unclosed.entries] == [("F001-5", "1")]
    slow = SalesRegister.build(
        rows, "2026-11", ruc=november.ruc, name=november.name, closes=MonthCloses.beside(path)
    )
    assert slow.entries == november.entries


def test_a_month_names_its_documents_that_went_to_a_later_month() -> None:
    from analysis.register import Figures

    closes = {"2026-10": dt.datetime(2026, 11, 5, 18, 0)}
    rows = [
        row("F001-3", "2026-10-30", "2026-10-30 10:00:00"),
        row("F001-4", "2026-10-30", "2026-11-06 10:00:00"),
    ]
    october = SalesRegister.build(rows, "2026-10", ruc=RUC, name=NAME, closes=closes)
    assert [(e.source, e.moved_to) for e in october.moved_out()] == [("F001-4", Period(2026, 11))]
    assert (
        "F001-4: llegó después del cierre del mes; va al registro de 11/2026 con estado 8."
        in october.warnings
    )
    sales = Figures(Decimal("200.00"), Decimal("36.00"), Decimal("236.00"))  # both documents, as Documentos
    reconciled = october.reconcile(sales)
    ((difference),) = reconciled.differences
    assert difference.documents == ("F001-4 → 11/2026",)
    assert difference.figures == Figures(Decimal("-100.00"), Decimal("-18.00"), Decimal("-118.00"))
    assert reconciled.agrees and october.sire_count() == 1 and len(october.ple_rows()) == 1
