"""The local store's times are Lima's wall clock: a file synced before the service answered in Lima time
(its rows' ``created_at`` in UTC, nothing saying so) fetches its days again once, and its rows then read
right; a time carrying its offset is read from the row (converted), not from the typed column."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import duckdb

from connector.documents import ChangesPage
from connector.store import LocalStore

TODAY = dt.date(2026, 12, 5)


class _Tenant:
    """A tenant without the list extension, answering ``rows`` (changed by the test between syncs)."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.base_url = "http://tenant.test/t/lima"
        self.rows = rows
        self.documents = self
        self.asked: list[tuple[dt.date, dt.date]] = []

    def changes(self, start: dt.date, end: dt.date, **_options: Any) -> ChangesPage:
        if start.year > 2000:
            self.asked.append((start, end))
        chosen = [r for r in self.rows if start.isoformat() <= r["date_of_issue"] <= end.isoformat()]
        return ChangesPage(chosen, extended=False)


def _row(created: str) -> dict[str, Any]:
    return {
        "external_id": "e-1",
        "id": 1,
        "number": "F001-1",
        "date_of_issue": "2026-10-31",
        "document_type_id": "01",
        "state_type_id": "05",
        "currency_type_id": "PEN",
        "total": "118.00",
        "created_at": created,
        "updated_at": created,
    }


def test_a_store_synced_with_utc_times_fetches_its_days_again_once(tmp_path: Path) -> None:
    path = tmp_path / "store.duckdb"
    old_service = _Tenant([_row("2026-11-01 01:15:00")])  # an earlier version answered UTC
    with LocalStore(path, old_service, recent_days=0) as store:  # type: ignore[arg-type]
        store.sync("2026-10-25", "2026-10-31", today=TODAY)
    with duckdb.connect(str(path)) as db:  # as a file of the earlier version: no mark
        db.execute("DELETE FROM meta WHERE key = 'stamps'")
    service = _Tenant([_row("2026-10-31 20:15:00")])  # the same document, answered in Lima time now
    with LocalStore(path, service, recent_days=0) as store:  # type: ignore[arg-type]
        store.sync("2026-10-25", "2026-10-31", today=TODAY)
        assert service.asked == [(dt.date(2026, 10, 25), dt.date(2026, 10, 31))]  # fetched again
        (row,) = store.documents("2026-10-31", "2026-10-31").rows
        assert row["created_at"] == "2026-10-31 20:15:00"
        typed = store.fetch("SELECT created_at FROM documents")
        assert typed == [(dt.datetime(2026, 10, 31, 20, 15),)]
        store.sync("2026-10-25", "2026-10-31", today=TODAY)
    with LocalStore(path, service, recent_days=0) as store:  # type: ignore[arg-type]
        store.sync("2026-10-25", "2026-10-31", today=TODAY)
    last = dt.date(2026, 10, 31)
    assert service.asked[1:] == [(last, last)] * 2  # once: the mark is kept (only the range's last,
    # recent, day is fetched again, as always)


def test_a_time_with_its_offset_is_not_read_from_the_typed_column(tmp_path: Path) -> None:
    tenant = _Tenant([_row("2026-11-01T01:15:00+00:00")])
    with LocalStore(tmp_path / "store.duckdb", tenant) as store:  # type: ignore[arg-type]
        store.sync("2026-10-31", "2026-10-31", today=TODAY)
        assert store.fetch("SELECT exact FROM documents") == [(False,)]  # read from raw, converted
        (record,) = store.documents("2026-10-31", "2026-10-31")
    assert record.created_at == dt.datetime(2026, 10, 31, 20, 15)
