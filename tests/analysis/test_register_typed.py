"""The sales register reads a store's ``exact`` rows from its typed columns (schema 2), the others from
their JSON: the typed reading of every exact row equals :func:`analysis.register._listed` of its
``raw``, odd rows (amounts of 3 decimals, with commas or as numbers, placeholder rates, ``yes`` flags,
unreadable dates and times, numbers without a dash, identity types as numbers) are not exact, and the
register of such a month equals the register of the store's whole list, file by file. A store file of
schema 1 keeps working: read-only as it is, and upgraded when opened to write."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from analysis.register import (
    _TYPED_COLUMNS,
    REGISTER_LOOK_BACK_DAYS,
    Period,
    SalesRegister,
    _build_entries,
    _listed,
    _stored_rows,
    _typed,
    sales_register,
)
from connector.store import _ADDED, SCHEMA_VERSION, LocalStore
from tests.analysis.test_register_store import CLOSES, _Tenant, _varied_rows

#: Values a tenant may write, each put in some rows: (key, value, whether the row is read typed).
ODD_VALUES: list[tuple[str, Any, bool]] = [
    ("total_taxed", "1.005", False),
    ("total_taxed", "1,250.00", False),
    ("total", 118.5, True),
    ("total", 118, True),
    ("total_igv", "", True),
    ("total_igv", None, True),
    ("total", "abc", False),
    ("total", True, False),
    ("total", 1e20, False),
    ("exchange_rate_sale", "3.7512345", False),
    ("exchange_rate_sale", "1", True),
    ("exchange_rate_sale", "0", True),
    ("exchange_rate_sale", 3.75, True),
    ("has_cdr", "yes", False),
    ("has_cdr", 2, False),
    ("has_cdr", 1, True),
    ("has_cdr", "true", True),
    ("created_at", "2026-04-02T10:00:00", True),
    ("created_at", "2026-04-02 10:00:00.123456", True),
    ("created_at", "2026-04-02 10:00:00.123456-05:00", False),  # an offset: read from raw, converted
    ("created_at", "2026-04-02T15:00:00Z", False),
    ("created_at", "2026-04-02 24:00:00", True),
    ("created_at", "2026-02-30 10:00:00", True),
    ("created_at", "02/04/2026 10:00", False),
    ("updated_at", 20260402, False),
    ("updated_at", "", True),
    ("date_of_issue", "2026-3-5", False),
    ("date_of_issue", "05/03/2026", False),
    ("date_of_issue", "31-02-2026", True),
    ("number", "F001", False),
    ("number", "F001-12a", False),
    ("number", 12, False),
    ("series", "", True),
    ("correlative", "12.0", False),
    ("correlative", "0012", True),
    ("customer_identity_document_type_id", 6, False),
    ("customer_identity_document_type_id", None, True),
    ("customer_name", 123, False),
    ("customer_name", None, True),
    ("notes", [], True),
    ("notes", [{"description": "FC01-0"}], False),  # a row listing notes is read whole (the links)
]


def _odd_rows() -> list[dict[str, Any]]:
    rows = _varied_rows()
    for index, row in enumerate(rows):
        if index % 3 == 0:
            key, value, _ = ODD_VALUES[(index // 3) % len(ODD_VALUES)]
            row[key] = value
            row["odd"] = [key, value]  # which oddity the row holds (its raw keeps it)
    return rows


def _typed_and_raw(store: LocalStore) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    found = store.fetch(f"SELECT {_TYPED_COLUMNS}, raw FROM documents")
    return [(row[:-1], orjson.loads(row[-1])) for row in found]


def test_the_typed_reading_of_an_exact_row_is_the_reading_of_its_raw(tmp_path: Path) -> None:
    rows = _odd_rows()
    with LocalStore(tmp_path / "store.duckdb", _Tenant(rows)) as store:  # type: ignore[arg-type]
        store.sync("2026-01-01", "2026-04-30")
        read = _typed_and_raw(store)
    typed = [(row, raw) for row, raw in read if row[0] is None]
    assert 0 < len(typed) < len(read)
    for row, raw in typed:
        assert raw["document_type_id"] not in ("07", "08") and not raw.get("notes")
        assert _typed(row) == _listed(raw), raw.get("odd")
    exact_odd = {tuple(map(str, raw["odd"])) for row, raw in typed if "odd" in raw}
    for key, value, stays in ODD_VALUES:
        assert ((key, str(value)) in exact_odd) == stays, (key, value)


@pytest.mark.parametrize("month", ["2026-03", "2026-04"])
def test_the_register_of_odd_rows_equals_the_register_of_the_whole_list(tmp_path: Path, month: str) -> None:
    tenant = _Tenant(_odd_rows())
    with LocalStore(tmp_path / "store.duckdb", tenant) as store:  # type: ignore[arg-type]
        fast = sales_register(store.reading(tenant), month, closes=CLOSES)  # type: ignore[arg-type]
        period = Period.of(month)
        whole = store.documents(period.start - dt.timedelta(days=REGISTER_LOOK_BACK_DAYS), period.end)
    slow = SalesRegister.build(whole.rows, period, ruc=fast.ruc, name=fast.name, closes=CLOSES)
    assert len(fast.entries) > 100
    assert fast.entries == slow.entries and fast.warnings == slow.warnings
    assert fast.ple_bytes() == slow.ple_bytes() and fast.sire_zip() == slow.sire_zip()
    assert fast.totals() == slow.totals()
    for simplified in (False, True):
        assert fast.adjustment_text(simplified=simplified) == slow.adjustment_text(simplified=simplified)


def _as_schema_1(path: Path) -> None:
    """The file as a store of schema 1 left it: without the columns schemas 2 and later added."""
    with duckdb.connect(str(path)) as db:
        for name in (name for version in _ADDED for name in _ADDED[version]):
            db.execute(f"ALTER TABLE documents DROP COLUMN {name}")
        db.execute("DELETE FROM meta WHERE key = 'schema'")


def test_a_store_of_schema_1_is_read_as_it_is_and_upgraded_when_opened_to_write(tmp_path: Path) -> None:
    rows = _odd_rows()
    tenant = _Tenant(rows)
    path = tmp_path / "store.duckdb"
    april = Period.of("2026-04")
    first = april.start - dt.timedelta(days=REGISTER_LOOK_BACK_DAYS)
    order = "ORDER BY external_id"
    with LocalStore(path, tenant) as store:  # type: ignore[arg-type]
        store.sync("2026-01-01", "2026-04-30")
        synced = store.fetch(f"SELECT * FROM documents {order}")
        expected = _build_entries(
            _stored_rows(store, first, april, _listed, CLOSES)[0], april, False, closes=CLOSES
        )
        assert store.schema == SCHEMA_VERSION == 3
    _as_schema_1(path)
    with LocalStore(path, tenant, read_only=True) as old:  # type: ignore[arg-type]
        assert old.schema == 1
        read, _, _ = _stored_rows(old, first, april, _listed, CLOSES)  # from raw: no typed columns
        assert _build_entries(read, april, False, closes=CLOSES) == expected
        frame = old.frame("2026-03-01", "2026-04-30")  # the columns the file has
        assert len(frame) > 100 and "created_at" not in frame.columns and "total" in frame.columns
    with LocalStore(path, tenant) as upgraded:  # type: ignore[arg-type]
        assert upgraded.schema == 3
        assert upgraded.fetch("SELECT value FROM meta WHERE key = 'schema'") == [("3",)]
        assert upgraded.fetch(f"SELECT * FROM documents {order}") == synced  # as a sync writes them
        register = sales_register(upgraded.reading(tenant), april, closes=CLOSES)  # type: ignore[arg-type]
        columns = upgraded.frame("2026-03-01", "2026-04-30").columns
        assert {"created_at", "updated_at", "customer_identity_type"} <= set(columns)
        assert not {"raw", "exact", "lists_notes", "hand_set"} & set(columns)
    assert (register.entries, register.warnings) == expected
    with LocalStore(path, tenant) as again:  # type: ignore[arg-type]
        assert again.schema == 3 and again.fetch("SELECT count(*) FROM meta WHERE key = 'schema'") == [(1,)]


def test_a_failed_upgrade_leaves_the_file_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "store.duckdb"
    tenant = _Tenant(_odd_rows())
    with LocalStore(path, tenant) as store:  # type: ignore[arg-type]
        store.sync("2026-03-01", "2026-03-31")
        count = store.count()
    _as_schema_1(path)
    import connector.store as module

    def broken(*_args: Any, **_kwargs: Any) -> str:
        raise RuntimeError("fallo a propósito (prueba)")

    monkeypatch.setattr(module, "_json_columns", broken)
    with pytest.raises(RuntimeError, match="a propósito"):
        LocalStore(path, tenant)  # type: ignore[arg-type]
    monkeypatch.undo()
    with LocalStore(path, tenant, read_only=True) as old:  # type: ignore[arg-type]
        assert old.schema == 1 and old.count() == count


def test_most_of_a_month_is_read_from_the_typed_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On this service's rows (the point of the columns), and none of a note's."""
    import analysis.register as module

    typed: list[Any] = []

    def counted(row: tuple[Any, ...]) -> Any:
        typed.append(_typed(row))
        return typed[-1]

    monkeypatch.setattr(module, "_typed", counted)
    tenant = _Tenant(_varied_rows())
    with LocalStore(tmp_path / "store.duckdb", tenant) as store:  # type: ignore[arg-type]
        store.sync("2026-01-01", "2026-04-30")
        march = Period.of("2026-03")
        read, _, _ = _stored_rows(store, march.start - dt.timedelta(days=45), march, _listed)
    made = {id(row) for row in typed}  # (held by ``typed``: no id is reused)
    kept = [row for row in read if id(row) in made]
    assert len(read) / 2 < len(kept) < len(read)
    assert not any(row.is_note for row in typed)
