"""The fast paths taken for list-sized work (issue 10's performance targets) give exactly what the plain
paths they replace gave: the same Decimal amounts, dates, sums, groups and register lines, on varied rows
(PEN and USD with and without a rate, credit notes, voided, rejected, being voided, free lines, ICBPER)."""

from __future__ import annotations

import datetime as dt
import gc
import random
import re
from collections import defaultdict
from decimal import Decimal
from typing import Any

import pytest

from analysis.register import SalesRegister, _amount, _fold, sire_file_name
from analysis.sales import (
    NOT_COUNTED,
    SOLES,
    Amounts,
    Sale,
    SalesSummary,
    _affected_number,
    by_customer,
    by_day,
    by_series,
    by_type,
    group_totals,
    listed_sales,
    sales_of,
    summarize,
)
from connector.models import DocumentList
from connector.parsing import exchange_rate_of, gc_paused, parse_date, parse_decimal, split_number
from sunat.money import round2, to_decimal

# --------------------------------------------------------------------------------------- references
# The code the fast paths replaced, kept here to compare with.

_YMD = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_DMY = re.compile(r"(\d{1,2})[-/](\d{1,2})[-/](\d{4})")


def plain_parse_decimal(value: object, default: Decimal = Decimal(0)) -> Decimal:
    if value is None or isinstance(value, bool):
        return default
    if isinstance(value, str):
        value = value.strip().replace(",", "")
        if not value:
            return default
    try:
        return to_decimal(value)
    except ValueError:
        return default


def plain_parse_date(value: object) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    try:
        for pattern, order in ((_YMD, (0, 1, 2)), (_DMY, (2, 1, 0))):
            match = pattern.match(text)
            if match:
                parts = [int(g) for g in match.groups()]
                return dt.date(parts[order[0]], parts[order[1]], parts[order[2]])
    except ValueError:
        return None
    return None


def plain_round2(value: Decimal) -> Decimal:
    from decimal import ROUND_HALF_UP, Context

    return to_decimal(value).quantize(Decimal("0.01"), context=Context(prec=80, rounding=ROUND_HALF_UP))


def plain_in_soles(sale: Sale) -> Amounts | None:
    signed = sale.amounts if sale.sign == 1 else sale.amounts.scaled(sale.sign)
    if sale.currency == SOLES:
        return signed
    if sale.rate is None:
        return None
    rate = sale.rate
    parts = {
        name: plain_round2(getattr(signed, name) * rate)
        for name in ("taxed", "exonerated", "unaffected", "export", "free", "igv", "icbper")
    }
    other = plain_round2(signed.other * rate)
    total = sum((parts[k] for k in parts if k != "free"), Decimal(0)) + other
    return Amounts(**parts, total=total, documents=1)


def plain_summarize(sales: list[Sale]) -> SalesSummary:
    per_currency: dict[str, Amounts] = {}
    soles = Amounts()
    rates: dict[str, Decimal] = {}
    unconverted: list[str] = []
    listed = excluded = 0
    for sale in sales:
        listed += 1
        if not sale.counted:
            excluded += 1
            continue
        per_currency[sale.currency] = per_currency.get(sale.currency, Amounts()) + sale.signed
        converted = plain_in_soles(sale)
        if converted is None:
            unconverted.append(sale.number)
            continue
        soles = soles + converted
        if sale.currency != SOLES and sale.rate is not None:
            rates[sale.number] = sale.rate
    return SalesSummary(listed, excluded, per_currency, soles, rates, unconverted)


def plain_groups(sales: list[Sale], key: Any) -> tuple[list[tuple[str, str, Amounts]], list[str]]:
    sums: dict[str, Amounts] = defaultdict(Amounts)
    labels: dict[str, str] = {}
    unconverted: list[str] = []
    for sale in sales:
        if sale.state in NOT_COUNTED:
            continue
        converted = plain_in_soles(sale)
        if converted is None:
            unconverted.append(sale.number)
            continue
        code, label = key(sale)
        sums[code] = sums[code] + converted
        labels.setdefault(code, label)
    return [(code, labels[code], sums[code]) for code in sorted(sums)], unconverted


# --------------------------------------------------------------------------------------- varied rows


def varied_rows(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """List rows of every kind the figures treat apart, amounts with odd cents (half-up cases)."""
    rng = random.Random(seed)
    rows = []
    for i in range(count):
        kind = rng.choice(["01", "01", "03", "03", "07", "08"])
        series = {"01": "F001", "03": "B001", "07": rng.choice(["FC01", "BC01"]), "08": "FD01"}[kind]
        currency = rng.choice(["PEN", "PEN", "PEN", "USD"])
        rate = rng.choice(["3.725", "3.7125", "1", ""]) if currency == "USD" else "1"
        taxed = Decimal(rng.randint(0, 500_000)) / 100
        exonerated = Decimal(rng.choice([0, 0, rng.randint(1, 99_999)])) / 100
        unaffected = Decimal(rng.choice([0, 0, rng.randint(1, 99_999)])) / 100
        export = Decimal(rng.choice([0, 0, 0, rng.randint(1, 99_999)])) / 100
        free = Decimal(rng.choice([0, 0, rng.randint(1, 9_999)])) / 100  # free lines: referential value
        igv = round2(taxed * Decimal("0.18"))
        icbper = Decimal(rng.choice([0, 0, 50, 100])) / 100
        other = Decimal(rng.choice([0, 0, 0, 125])) / 100
        total = taxed + exonerated + unaffected + export + igv + icbper + other
        rows.append(
            {
                "id": i + 1,
                "external_id": f"ext-{i}",
                "number": f"{series}-{i + 1}",
                "series": series,
                "correlative": i + 1,
                "date_of_issue": f"2026-03-{1 + i % 28:02d}",
                "document_type_id": kind,
                "state_type_id": rng.choice(["01", "05", "05", "05", "09", "11", "13"]),
                "currency_type_id": currency,
                "exchange_rate_sale": rate,
                "customer_identity_document_type_id": rng.choice(["6", "1", "-"]),
                "customer_number": rng.choice(["20555555556", "45781236", "-", "20100066603"]),
                "customer_name": rng.choice(["ACME S.A.C.", "MARÍA PEÑA", "CLIENTE | VARIOS", ""]),
                "total_taxed": f"{taxed:.2f}",
                "total_exonerated": f"{exonerated:.2f}",
                "total_unaffected": f"{unaffected:.2f}",
                "total_exportation": f"{export:.2f}",
                "total_free": f"{free:.2f}",
                "total_igv": f"{igv:.2f}",
                "total_plastic_bag_taxes": f"{icbper:.2f}",
                "total": f"{total:.2f}",
                "has_cdr": rng.choice([True, False]),
                "affected_document": {"series": "F001", "number": 1, "date_of_issue": "2026-02-27"}
                if kind in ("07", "08")
                else None,
                "created_at": f"2026-03-{1 + i % 28:02d} 15:00:00",
                "updated_at": rng.choice(["2026-03-28 10:00:00", "2026-04-02 10:00:00"]),
            }
        )
    return rows


ROWS = varied_rows(600)


# --------------------------------------------------------------------------------------- tests

NUMBERS = [
    "118.00", "-5", "0", "0.00", "-0.00", "007.50", "1.005", " 5 ", "1,234.50", "", "  ", "abc", "1e3",
    "1_000", "NaN", "Infinity", "-", ".5", "5.", "+3.25", "118.00\n", None, True, 3, 2.675, Decimal("1.10"),
]  # fmt: skip


@pytest.mark.parametrize("value", NUMBERS, ids=repr)
def test_parse_decimal_reads_what_the_tolerant_path_read(value: object) -> None:
    fast, plain = parse_decimal(value), plain_parse_decimal(value)
    assert (fast, str(fast)) == (plain, str(plain))  # same value and same exponent ("118.00")


DATES = [
    "2026-03-05", "2026-3-5", "2026-02-30", "2026-W10-1", "05-03-2026", "05/03/2026", "2026-03-05 10:20:00",
    "2026-03-05T10:20", " 2026-03-05", "2026-13-01", "", "x", None, dt.date(2026, 3, 5),
    dt.datetime(2026, 3, 5, 23, 59),
]  # fmt: skip


@pytest.mark.parametrize("value", DATES, ids=repr)
def test_parse_date_reads_what_the_patterns_read(value: object) -> None:
    assert parse_date(value) == plain_parse_date(value)


@pytest.mark.parametrize(
    "value", ["2.345", "-2.345", "2.344999", "0.005", "-0.005", "1E+3", "0E-7", "118", "-0.004"]
)
def test_round2_fast_path_rounds_half_up_as_before(value: str) -> None:
    fast, plain = round2(Decimal(value)), plain_round2(Decimal(value))
    assert (fast, str(fast)) == (plain, str(plain))


def test_round2_still_refuses_what_is_not_a_finite_amount() -> None:
    for bad in (Decimal("NaN"), Decimal("Infinity"), "x"):
        with pytest.raises(ValueError):
            round2(bad)  # type: ignore[arg-type]


def test_summary_is_the_one_of_adding_document_by_document() -> None:
    sales = sales_of(ROWS)
    kinds = {(s.document_type, s.state, s.currency, s.rate is None) for s in sales}
    assert {("07", "05", "USD", False), ("01", "11", "PEN", True), ("03", "09", "PEN", True)} <= kinds
    assert summarize(sales) == plain_summarize(sales_of(ROWS))  # fresh sales: nothing cached shared
    summary = summarize(sales)
    assert summary.unconverted and summary.rates and summary.excluded  # every branch was taken
    assert summary.soles.free > 0 and summary.soles.icbper > 0


@pytest.mark.parametrize("key", [by_customer, by_type, by_series, by_day])
def test_group_totals_are_the_ones_of_adding_document_by_document(key: Any) -> None:
    groups, unconverted = group_totals(sales_of(ROWS), key)
    plain, plain_unconverted = plain_groups(sales_of(ROWS), key)
    assert [(g.key, g.label, g.amounts) for g in groups] == plain
    assert unconverted == plain_unconverted


def test_total_of_equals_adding_with_plus() -> None:
    parts = [s.signed for s in sales_of(ROWS)]
    added = Amounts()
    for part in parts:
        added = added + part
    assert Amounts.total_of(parts) == added
    assert Amounts.total_of([]) == Amounts()


def test_records_built_at_once_equal_records_built_one_by_one() -> None:
    one_by_one = DocumentList(ROWS)
    singles = [one_by_one[i] for i in range(len(ROWS))]
    assert list(DocumentList(ROWS)) == singles
    partly = DocumentList(ROWS)
    first = partly[3]
    assert list(partly)[3] is first and list(partly) == singles


def test_register_lines_keep_their_text() -> None:
    records = list(DocumentList(ROWS))
    register = SalesRegister.build(records, "2026-03", ruc="20100066603", name="EMPRESA Ñ S.A.C.")
    again = SalesRegister.build(records, "2026-03", ruc="20100066603", name="EMPRESA Ñ S.A.C.")
    assert register.ple_rows() == again.ple_rows() and register.sire_rows() == again.sire_rows()
    for row in register.ple_rows():
        amounts = [Decimal(text) for text in row[12:24]]
        assert sum(amounts) == Decimal(row[24])  # fields 13-24 add up to the total on every line
        assert all(re.fullmatch(r"-?\d+\.\d\d", text) and text != "-0.00" for text in row[12:25])
    totals = register.totals()
    assert totals == {k: sum((Decimal(r[i]) for r in register.ple_rows()), Decimal(0)) for k, i in zip(
        totals, range(12, 25), strict=True)}  # fmt: skip


@pytest.mark.parametrize("value", ["0", "0E-5", "-0.00", "-0.004", "0.005", "-12.345", "118.00"])
def test_register_amount_text(value: str) -> None:
    text = f"{plain_round2(Decimal(value)):f}"
    assert _amount(Decimal(value)) == ("0.00" if text in ("0.00", "-0.00") else text)


def test_folded_names_are_the_same_every_time() -> None:
    assert _fold("MARÍA  PEÑA | S/A\\x") == "MARIA PENA S A x"
    assert _fold("MARÍA  PEÑA | S/A\\x") == "MARIA PENA S A x"


def test_gc_paused_switches_the_collector_back_on() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause leaves the outer one alone
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_list_builds_its_sales_once_for_itself_and_its_cached_copies() -> None:
    listed = DocumentList(ROWS)
    copy = listed.cached_copy()
    built = listed_sales(copy)
    assert [(s.number, s.amounts, s.state) for s in built] == [
        (s.number, s.amounts, s.state) for s in sales_of(ROWS)
    ]
    assert listed_sales(listed)[0] is built[0] and listed_sales(listed.cached_copy())[5] is built[5]
    built.clear()  # callers get their own list
    assert len(listed_sales(listed)) == len(ROWS)


def tenant_shaped(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same documents as a real tenant or an odd row might send them: no series nor correlative,
    ``d-m-Y`` dates, amounts as numbers or with thousands commas, 0/1 flags, the modified document as a
    ``"F001-1"`` string, no identity type; some registered in April (state 8 once March is closed) or
    voided in April (state 9)."""
    rng = random.Random(11)
    out = []
    for i, row in enumerate(rows):
        row = dict(row)
        if i % 5 == 0:
            row.pop("series"), row.pop("correlative")
            row["date_of_issue"] = "-".join(reversed(row["date_of_issue"].split("-")))
            row["total"] = "1," + row["total"] if i % 10 == 0 else float(row["total"])
            row["has_cdr"] = rng.choice([0, 1, "1", "true"])
            if row["affected_document"]:
                row["affected_document"] = "F001-1"
            row.pop("customer_identity_document_type_id")
        if i % 3 == 0 and row["date_of_issue"] >= "2026-03-26":
            row["created_at"] = "2026-04-02 09:00:00"  # registered after the month ended
        if i % 11 == 0:
            row["exchange_rate_sale"] = rng.choice([None, "0", "3.7", 3.75])
        if i % 13 == 0:
            row["total_plastic_bag_taxes"] = None
        out.append(row)
    return out


@pytest.mark.parametrize("consolidate", [False, True])
@pytest.mark.parametrize("period", ["2026-03", "2026-04"])
def test_register_from_raw_rows_equals_register_from_records(period: str, consolidate: bool) -> None:
    rows = ROWS + tenant_shaped(ROWS)
    options: dict[str, Any] = {"ruc": "20100066603", "name": "EMPRESA Ñ", "consolidate_boletas": consolidate}
    options["closes"] = {"2026-03": dt.datetime(2026, 4, 1, 0, 0)}  # March closed as April began
    from_rows = SalesRegister.build(rows, period, **options)
    from_records = SalesRegister.build(list(DocumentList(rows)), period, **options)
    assert from_rows.entries == from_records.entries and from_rows.warnings == from_records.warnings
    assert from_rows.ple_text() == from_records.ple_text()
    assert from_rows.sire_text() == from_records.sire_text()
    states = {e.state for e in from_rows.entries}
    assert states >= ({"1", "2"} if period == "2026-03" else {"8", "9"})  # every kind of line was made


def test_amounts_in_cents_keep_their_text_without_rounding() -> None:
    for value in ["0.05", "-0.05", "118.00", "-1234.50", "1.005", "12.3", "1E+2", "-0.001", "0.10"]:
        text = f"{plain_round2(Decimal(value)):f}"
        assert _amount(Decimal(value)) == ("0.00" if text in ("0.00", "-0.00") else text)


def plain_sales_of(rows: list[dict[str, Any]]) -> list[Sale]:
    """The sales built field by field through the dataclasses' own ``__init__``."""
    out = []
    for position, row in enumerate(rows):
        day = parse_date(row.get("date_of_issue"))
        if day is None:
            continue
        number = str(row.get("number") or "")
        series, correlative = split_number(number)
        if row.get("series"):
            series = str(row["series"])
        amounts = Amounts(
            *(plain_parse_decimal(row.get(f"total_{k}")) for k in (
                "taxed", "exonerated", "unaffected", "exportation", "free", "igv", "plastic_bag_taxes")),
            total=plain_parse_decimal(row.get("total")),
            documents=1,
        )  # fmt: skip
        currency = str(row.get("currency_type_id") or SOLES)
        out.append(
            Sale(
                position,
                day,
                number,
                series,
                correlative,
                str(row.get("document_type_id") or ""),
                str(row.get("state_type_id") or ""),
                currency,
                exchange_rate_of(row) if currency != SOLES else None,
                str(row.get("customer_identity_document_type_id") or ""),
                str(row.get("customer_number") or ""),
                str(row.get("customer_name") or ""),
                amounts,
                _affected_number(row.get("affected_document")),
                None,
                str(row.get("has_cdr")).strip().lower() in ("1", "true"),
            )
        )
    return out


def test_sales_built_without_init_equal_sales_built_with_it() -> None:
    rows = ROWS + tenant_shaped(ROWS)
    fast, plain = sales_of(rows), plain_sales_of(rows)
    assert fast == plain and [repr(s) for s in fast] == [repr(s) for s in plain]
    for quick, slow in zip(fast, plain, strict=True):
        assert [str(v) for v in vars(quick.amounts).values()] == [str(v) for v in vars(slow.amounts).values()]
        assert quick.signed == slow.signed and quick.soles == slow.soles and quick.in_soles() == slow.soles
        assert hash(quick.amounts) == hash(slow.amounts)
    assert any(s.document_type == "07" and s.currency == SOLES for s in fast)  # the lazy branch too


def test_sales_in_soles_are_the_ones_converted_part_by_part() -> None:
    sales = sales_of(ROWS + tenant_shaped(ROWS))
    assert sum(s.currency != SOLES and s.rate is not None for s in sales) > 100
    for sale in sales:
        fast, plain = sale.in_soles(), plain_in_soles(sale)
        assert fast == plain and repr(fast) == repr(plain)  # same values and exponents
        assert sale.soles == plain


def test_register_totals_are_the_sums_of_its_lines_text() -> None:
    for period in ("2026-03", "2026-04"):
        register = SalesRegister.build(ROWS + tenant_shaped(ROWS), period, ruc="20100066603", name="X")
        rows = register.ple_rows()
        plain = {
            name: sum((Decimal(row[column]) for row in rows), Decimal(0))
            for name, column in zip(register.totals(), range(12, 25), strict=True)
        }
        totals = register.totals()
        assert totals == plain and [str(v) for v in totals.values()] == [str(v) for v in plain.values()]
        assert register.sire_name == sire_file_name(
            "20100066603", register.period, has_data=bool(register.sire_rows())
        )
