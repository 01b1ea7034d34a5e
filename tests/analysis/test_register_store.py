"""The sales register read from a local store (``analysis.register._stored_rows``) equals the register
of the store's whole list (what ``sales_register`` built before): the same entries, warnings, PLE / RVIE
/ adjustment texts, totals, file names and Excel, on varied rows (this service's and real tenants'
shapes, late registrations, voids after the month, notes linked through a factura's ``notes`` only, a
customer name that spells a key), and its table frame equals the lines' text."""

from __future__ import annotations

import datetime as dt
import io
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from analysis.register import (
    PLE_FIELDS,
    REGISTER_LOOK_BACK_DAYS,
    Period,
    SalesRegister,
    _IssueDates,
    _stored_rows,
    ple_file_name,
    sales_register,
)
from connector.documents import ChangesPage
from connector.errors import NotFoundError
from connector.models import AffectedRef
from connector.store import LocalStore
from tests.connector.test_fast_paths import ROWS, tenant_shaped

BASE = "http://tenant.test/t/x"
#: March closed as April began: March documents registered or voided in April are April's 8 and 9.
CLOSES = {"2026-03": dt.datetime(2026, 4, 1, 0, 0)}


class _Documents:
    """A tenant without the list extension: each range answered whole from ``rows``."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.xml_asked: list[str] = []

    def changes(self, start: dt.date, end: dt.date, **_options: Any) -> ChangesPage:
        def day(row: dict[str, Any]) -> str:
            text = str(row.get("date_of_issue") or "")
            return text if text[4:5] == "-" else "-".join(reversed(text.split("-")))

        chosen = [r for r in self.rows if start.isoformat() <= day(r) <= end.isoformat()]
        return ChangesPage(chosen, extended=False)

    def download_xml(self, external_id: str) -> bytes:
        self.xml_asked.append(external_id)
        raise NotFoundError("sin XML (prueba)", status=404)


class _Tenant:
    """What the store and the register ask of a client."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.base_url = BASE
        self.documents = _Documents(rows)
        self.progress = None


def _varied_rows() -> list[dict[str, Any]]:
    """The fast paths' rows in both shapes, plus what only a stored range shows: voids and late
    registrations of March documents seen from April, a note linked only by its factura's ``notes``,
    a name holding ``"created_at":"2026-04-`` (a stored row's text test must not be fooled either way)."""
    rows = [dict(r) for r in ROWS + tenant_shaped(ROWS)]
    rng = random.Random(5)
    for index, row in enumerate(rows):
        row["external_id"] = f"id-{index}"
        row["id"] = index + 1  # unique: the store lists by date and id, ties would be in any order
        if index % 17 == 0 and str(row.get("date_of_issue", "")).startswith("2026-03"):
            row["state_type_id"], row["updated_at"] = "11", f"2026-04-0{rng.randint(1, 9)} 10:00:00"
        if index % 29 == 0:
            row["customer_name"] = 'ACME "created_at":"2026-04-01 S.A.'
    factura = next(r for r in rows if r.get("document_type_id") == "01" and r.get("series") == "F001")
    note = next(r for r in rows if r.get("document_type_id") == "07")
    linked = {**note, "external_id": "linked-note", "id": 10_000, "number": "FC01-999", "series": "FC01"}
    linked["correlative"] = 999
    linked.pop("affected_document", None)
    factura["notes"] = [{"description": "FC01-999"}]
    return [*rows, linked]


def _store_and_tenant(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[LocalStore, _Tenant]:
    tenant = _Tenant(rows)
    store = LocalStore(tmp_path / "store.duckdb", tenant)  # type: ignore[arg-type]
    return store, tenant


@pytest.mark.parametrize("consolidate", [False, True])
@pytest.mark.parametrize("month", ["2026-03", "2026-04"])
def test_the_stored_register_equals_the_register_of_the_whole_list(
    tmp_path: Path, month: str, consolidate: bool
) -> None:
    store, tenant = _store_and_tenant(tmp_path, _varied_rows())
    with store:
        reader = store.reading(tenant)  # type: ignore[arg-type]
        fast = sales_register(reader, month, consolidate_boletas=consolidate, closes=CLOSES)
        period = Period.of(month)
        whole = store.documents(period.start - dt.timedelta(days=REGISTER_LOOK_BACK_DAYS), period.end)
        slow = SalesRegister.build(
            whole.rows, period, ruc=fast.ruc, name=fast.name, consolidate_boletas=consolidate, closes=CLOSES
        )
    assert fast.entries == slow.entries and fast.warnings == slow.warnings
    assert {e.state for e in fast.entries} >= ({"1", "2"} if month == "2026-03" else {"8", "9"})
    assert fast.ple_text() == slow.ple_text() and fast.sire_text() == slow.sire_text()
    assert fast.ple_simplified_text() == slow.ple_simplified_text()
    for simplified in (False, True):
        assert fast.adjustment_text(simplified=simplified) == slow.adjustment_text(simplified=simplified)
    assert fast.totals() == slow.totals() and fast.ple_name == slow.ple_name
    assert fast.sire_zip() == slow.sire_zip()
    assert fast.sire_count() == len(slow.sire_rows()) == len(fast.sire_rows())
    if month == "2026-03" and not consolidate:
        linked = [e for e in fast.entries if e.source == "FC01-999"]
        assert linked and linked[0].affected_series == "F001"  # linked through the factura's notes


def test_only_rows_that_can_make_a_line_are_read(tmp_path: Path) -> None:
    rows = _varied_rows()
    store, tenant = _store_and_tenant(tmp_path, rows)
    with store:
        store.sync("2026-02-01", "2026-04-30")
        april = Period.of("2026-04")
        first = april.start - dt.timedelta(days=REGISTER_LOOK_BACK_DAYS)
        read, dates, head = _stored_rows(store, first, april, closes=CLOSES)
        whole = store.documents(first, april.end).rows
        inexact = {found for (found,) in store.fetch("SELECT external_id FROM documents WHERE NOT exact")}
        assert len(dates) == len({r["number"] for r in whole})  # (read from the store when asked)
    ids = {r["external_id"] for r in read}
    march = [r for r in whole if not str(r["date_of_issue"]).startswith("2026-04")]
    kept = [r for r in march if r["external_id"] in ids]
    assert 0 < len(kept) < len(march)  # the March rows that can make an April line, not every one
    for row in kept:  # registered or voided since April began, not read plainly (typed columns not
        # exact: kept to be read whole), or listing notes (a name spelling the key does not count)
        assert (
            any(str(row.get(key) or "") >= "2026-04" for key in ("created_at", "updated_at"))
            or row.get("notes")
            or row["external_id"] in inexact
        ), row
    assert any("created_at" in row["customer_name"] for row in march)
    april_rows = [r for r in whole if str(r["date_of_issue"]).startswith("2026-04")]
    assert ids >= {r["external_id"] for r in april_rows}
    assert head[0]["number"] == whole[0]["number"]
    assert set(read[0]) <= set(whole[0])  # only the register's keys


def test_an_empty_month_still_names_the_issuer_from_the_range(tmp_path: Path) -> None:
    rows = [r for r in _varied_rows() if str(r.get("date_of_issue", "")).startswith("2026-03")]
    rows = [r for r in rows if not str(r.get("created_at") or "").startswith("2026-04")]
    rows = [{**r, "updated_at": "2026-03-31 10:00:00", "filename": "20100066603-01-F001-1"} for r in rows]
    store, tenant = _store_and_tenant(tmp_path, rows)
    with store:
        register = sales_register(store.reading(tenant), "2026-04")  # type: ignore[arg-type]
    assert register.entries == [] and register.ruc == "20100066603"  # from the range's first row
    assert register.ple_text() == ""
    assert register.ple_name == ple_file_name("20100066603", register.period, has_data=False)


def test_a_month_without_documents_in_its_range_names_the_issuer_in_its_file_names(tmp_path: Path) -> None:
    """A month with no document in it nor in the weeks before (a tenant's quiet months) still names the
    issuer's RUC in its files (``LE2026…`` without it was the name of July's empty PLE)."""
    rows = [r for r in _varied_rows() if str(r.get("date_of_issue", "")).startswith("2026-03")]
    rows = [{**r, "filename": "20100066603-01-F001-1"} for r in rows]
    store, tenant = _store_and_tenant(tmp_path, rows)
    with store:
        march = sales_register(store.reading(tenant), "2026-03")  # type: ignore[arg-type]
        register = sales_register(store.reading(tenant), "2026-07")  # type: ignore[arg-type]
    assert march.entries and march.ruc == "20100066603"  # the store holds March's documents
    assert register.entries == [] and register.ruc == "20100066603"
    assert register.ple_name == "LE2010006660320260700140100001011.TXT"
    assert register.sire_name.startswith("LE20100066603202607")


def test_the_register_names_the_documents_whose_state_was_set_by_hand(tmp_path: Path) -> None:
    """Who, when, from which state to which and why, in the warnings, the register's ``by_hand`` and
    its Excel: the same from the store as from the whole list."""
    import openpyxl

    rows = _varied_rows()
    march = [r for r in rows if str(r.get("date_of_issue", "")).startswith("2026-03")]
    changed = march[3]
    other = {**march[4], "date_of_issue": "2026-02-20", "number": "F009-77", "series": "F009"}
    other.update(correlative=77, external_id="february", id=20_000)
    rows.append(other)
    for row in (changed, other):  # a March document, and one of February (not March's register)
        row["state_changes"] = [
            {"changed_at": "2026-03-20 09:00:00", "user_name": "Luis", "from_state_type_id": "01",
             "state_type_id": "03", "reason": "enviado por otro medio"},
            {"changed_at": "2026-03-21 16:45:00", "user_name": "Ana Pérez", "from_state_type_id": "05",
             "state_type_id": "11", "reason": "anulado en papel"},
        ]  # fmt: skip
    store, tenant = _store_and_tenant(tmp_path, rows)
    with store:
        fast = sales_register(store.reading(tenant), "2026-03")  # type: ignore[arg-type]
        period = Period.of("2026-03")
        whole = store.documents(period.start - dt.timedelta(days=REGISTER_LOOK_BACK_DAYS), period.end)
    slow = SalesRegister.build(whole.rows, period, ruc=fast.ruc, name=fast.name)
    said = (
        f"{changed['number']}: estado cambiado a mano el 21/03/2026 16:45 por Ana Pérez, de Aceptado a "
        "Anulado: «anulado en papel»; no se informó a SUNAT."
    )
    assert [item.number for item in fast.by_hand] == [changed["number"]] == [i.number for i in slow.by_hand]
    assert said in fast.warnings and said in slow.warnings and fast.warnings == slow.warnings
    assert not any(other["number"] + ":" in w and "a mano" in w for w in fast.warnings)
    sheet = openpyxl.load_workbook(io.BytesIO(fast.excel_bytes()))["Estado cambiado a mano"]
    values = [[cell.value for cell in row] for row in sheet.iter_rows()]
    assert values[0] == ["Documento", "Fecha de emisión", "Cambiado el", "Por", "De", "A", "Motivo"]
    assert values[1][0] == changed["number"] and values[1][2] == dt.datetime(2026, 3, 21, 16, 45)
    assert values[1][3:] == ["Ana Pérez", "Aceptado", "Anulado", "anulado en papel"] and len(values) == 2
    # a store of schema 2 (no hand_set flag) gets the flag from its rows' text when opened to write
    import duckdb

    with duckdb.connect(str(tmp_path / "store.duckdb")) as db:
        db.execute("ALTER TABLE documents DROP COLUMN hand_set")
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    with LocalStore(tmp_path / "store.duckdb", tenant) as again:  # type: ignore[arg-type]
        assert again.schema == 3
        flagged = again.fetch("SELECT number FROM documents WHERE hand_set ORDER BY 1")
        assert flagged == sorted([(changed["number"],), (other["number"],)])
        assert sales_register(again.reading(tenant), "2026-03").by_hand == fast.by_hand  # type: ignore[arg-type]


def test_the_table_frame_holds_the_lines(tmp_path: Path) -> None:
    register = SalesRegister.build(_varied_rows(), "2026-03", ruc="20100066603", name="X")
    frame = register.ple_frame()
    rows = register.ple_rows()
    assert list(frame.columns) == list(PLE_FIELDS) and len(frame) == len(rows) > 100
    for place, name in enumerate(PLE_FIELDS):
        if 12 <= place < 25:
            assert frame[name].dtype == float
            assert frame[name].tolist() == [float(Decimal(r[place])) for r in rows]
        else:
            assert frame[name].tolist() == [r[place] for r in rows]
    empty = SalesRegister.build([], "2026-03", ruc="20100066603", name="X").ple_frame()
    assert list(empty.columns) == list(PLE_FIELDS) and len(empty) == 0
    chosen = ["Estado", "Importe total", "Serie"]
    assert register.ple_frame(chosen).equals(frame[chosen])
    with pytest.raises(ValueError, match="not PLE 14.1 fields: Total"):
        register.ple_frame(["Serie", "Total"])


def test_lines_are_made_once_and_follow_a_changed_register() -> None:
    register = SalesRegister.build(_varied_rows(), "2026-03", ruc="20100066603", name="X")
    first = register.ple_rows()
    first.append(["mine"])  # a caller's list: the register's own stays as made
    assert register.ple_rows() == first[:-1]
    assert register.ple_rows()[0] is first[0]  # made once
    register.entries = register.entries[:3]
    assert len(register.ple_rows()) == 3
    register.name = "OTRA"
    assert {row[1] for row in register.sire_rows()} == {"OTRA"}
    buffer = io.BytesIO(register.excel_bytes())
    assert buffer.getvalue()[:2] == b"PK"


def test_the_issue_dates_read_for_the_notes_are_those_of_the_whole_range(tmp_path: Path) -> None:
    rows = _varied_rows()
    rows.append({**rows[1], "external_id": "again", "id": 20_000, "date_of_issue": "2026-03-02"})  # twice
    store, tenant = _store_and_tenant(tmp_path, rows)
    with store:
        store.sync("2026-02-01", "2026-04-30")
        first, last = dt.date(2026, 2, 1), dt.date(2026, 4, 30)
        whole = dict(_IssueDates(store, first, last))  # every number (iterating reads them all)
        some = _IssueDates(store, first, last)
        named = [rows[1]["number"], rows[5]["number"], "F999-1"]
        some.read(split_ref(number) for number in named)
        assert some._all is None  # only those were read
        assert [some.get(n) for n in named] == [whole[rows[1]["number"]], whole[rows[5]["number"]], None]
        assert some._all is None and some.get("F999-1", "none") == "none"
        with pytest.raises(KeyError):
            some["F999-1"]
        assert some.get(rows[7]["number"]) == whole[rows[7]["number"]]  # another number: all are read
        assert some._all is not None and dict(some) == whole and len(some) == len(whole)


def split_ref(number: str) -> AffectedRef | None:
    """The reference a note would carry to ``number``."""
    return AffectedRef.from_wire(number)


def _generated_month(seed: int) -> list[dict[str, Any]]:
    """A generated quarter (February to April 2026) of list rows: facturas, boletas and notes (some
    naming their factura), in soles and dollars (some without a rate), every state, some registered or
    voided after their month, dates in both of the tenants' formats, amounts with or without
    thousands commas."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    issued: list[tuple[str, str]] = []
    for index in range(400):
        day = dt.date(2026, 2, 1) + dt.timedelta(days=rng.randrange(89))
        kind = rng.choice(["01", "01", "03", "03", "07", "08"])
        series = {"01": "F001", "03": "B001", "07": "FC01", "08": "FD01"}[kind]
        number = f"{series}-{index + 1}"
        currency = rng.choice(["PEN", "PEN", "PEN", "USD"])
        taxed = Decimal(rng.randrange(100, 2_000_000)) / 100
        igv = (taxed * Decimal("0.18")).quantize(Decimal("0.01"))
        bag = Decimal("0.50") if rng.random() < 0.1 else Decimal("0.00")
        total = taxed + igv + bag

        def money(value: Decimal) -> str:
            return f"{value:,.2f}" if rng.random() < 0.1 else f"{value:.2f}"

        late = day + dt.timedelta(days=rng.choice([0, 0, 0, 3, 20, 40]))
        row: dict[str, Any] = {
            "id": index + 1,
            "external_id": f"gen-{seed}-{index}",
            "number": number,
            "series": series,
            "correlative": index + 1,
            "date_of_issue": day.isoformat() if rng.random() < 0.8 else f"{day:%d-%m-%Y}",
            "document_type_id": kind,
            "state_type_id": rng.choice(["05", "05", "05", "01", "09", "11", "13"]),
            "has_cdr": rng.random() < 0.8,
            "currency_type_id": currency,
            "exchange_rate_sale": rng.choice(["3.725", "3.8", "1"]) if currency == "USD" else "1",
            "customer_identity_document_type_id": "6" if kind != "03" else rng.choice(["1", "-"]),
            "customer_number": "20100066603" if kind != "03" else rng.choice(["45781236", "-"]),
            "customer_name": rng.choice(["ACME S.A.C.", "Ñandú Pérez", "CLIENTE | RARO"]),
            "total_exportation": "0.00",
            "total_taxed": money(taxed),
            "total_igv": money(igv),
            "total_exonerated": "0.00",
            "total_unaffected": "0.00",
            "total_plastic_bag_taxes": f"{bag:.2f}",
            "total": money(total),
            "created_at": f"{late:%Y-%m-%d} {rng.randrange(24):02d}:15:00",
            "updated_at": f"{late + dt.timedelta(days=rng.choice([0, 2, 35])):%Y-%m-%d} 10:00:00",
        }
        if kind in ("07", "08") and issued and rng.random() < 0.8:
            target_number, target_day = rng.choice(issued)
            target_series, target = target_number.split("-")
            row["affected_document"] = {
                "document_type_id": "01",
                "series": target_series,
                "number": int(target),
                "date_of_issue": target_day,
            }
        if kind == "01":
            issued.append((number, day.isoformat()))
        rows.append(row)
    return rows


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_stored_register_equals_the_decimal_register_over_generated_months(
    tmp_path: Path, seed: int
) -> None:
    """The register read from the store's typed columns and the one built from the whole list with
    Decimals (``SalesRegister.build``: the rules' one place) agree, line for line and in every file,
    over generated months, with and without closes."""
    rows = _generated_month(seed)
    store, tenant = _store_and_tenant(tmp_path, rows)
    closes_by_case = [
        {},
        {"2026-02": dt.datetime(2026, 3, 4, 18, 0), "2026-03": dt.datetime(2026, 4, 2, 9, 0)},
    ]
    states: set[str] = set()
    with store:
        for month in ("2026-03", "2026-04"):
            for closes in closes_by_case:
                fast = sales_register(store.reading(tenant), month, closes=closes)  # type: ignore[arg-type]
                period = Period.of(month)
                whole = store.documents(period.start - dt.timedelta(days=REGISTER_LOOK_BACK_DAYS), period.end)
                slow = SalesRegister.build(whole.rows, period, ruc=fast.ruc, name=fast.name, closes=closes)
                assert fast.entries == slow.entries, (month, closes)
                assert fast.warnings == slow.warnings and fast.totals() == slow.totals()
                assert fast.ple_text() == slow.ple_text() and fast.sire_text() == slow.sire_text()
                assert fast.entries  # a month of lines, not two empty registers
                states |= {entry.state for entry in fast.entries}
    assert states >= {"1", "2", "8", "9"}  # the closes moved documents and corrected voids
