"""Every line of the register, of every layout (PLE 14.1, 14.2, SIRE RVIE, the adjustment files),
equals the line an independent writing of the layouts makes (kept here as the oracle, one entry at a
time, as the code at 93c8584 wrote them), on odd entries (dollars with and without a rate, credit notes
naming facturas of this and earlier months, rejected, voided after and within the month, boletas
without identity, zero amounts, a receipt with a due date, consolidated boletas, long names); the
totals are the lines' sums, and the page's table frame equals the frame of those lines."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

from analysis.register import (
    PLE_FIELDS,
    SIRE_FIELDS,
    Period,
    RegisterEntry,
    SalesRegister,
    _amount,
    _date,
    _rate,
    ple_fields,
    ple_simplified_fields,
    sire_fields,
)
from tests.analysis.test_register_store import CLOSES, _varied_rows
from tests.analysis.test_register_typed import _odd_rows

RUC, NAME = "20601030013", "EMPRESA DEMO S.A.C."


# -- the oracle: the layouts one entry at a time, as the code before the columns wrote them ---------------


def _old_money(e: RegisterEntry) -> list[str]:
    z = "0.00"
    return [
        *(_amount(getattr(e, n)) for n in ("export", "taxed", "taxed_discount", "igv", "igv_discount")),
        *(_amount(getattr(e, n)) for n in ("exonerated", "unaffected", "isc")),
        z,
        z,
        _amount(e.icbper),
        _amount(e.other),
        _amount(e.total),
    ]


def _old_reference(e: RegisterEntry) -> list[str]:
    if not e.affected_series:
        return ["", "", "", ""]
    return [_date(e.affected_date), e.affected_type, e.affected_series, e.affected_number]


def _old_document(e: RegisterEntry, length: int) -> list[str]:
    return [
        _date(e.date),
        _date(e.due_date) if e.document_type == "14" else "",
        e.document_type,
        e.series,
        str(e.number),
        str(e.number_end) if e.number_end is not None else "",
        e.customer_type,
        e.customer_number,
        e.customer_name[:length],
    ]


def _old_ple(e: RegisterEntry, index: int) -> list[str]:
    return [
        e.period.code + "00",
        e.cuo,
        f"M{index}",
        *_old_document(e, 100),
        *_old_money(e),
        e.currency,
        _rate(e.rate) if e.currency != "PEN" else "1.000",
        *_old_reference(e),
        "",
        "",
        "",
        e.state,
    ]


def _old_simplified(e: RegisterEntry, index: int) -> list[str]:
    full = _old_ple(e, index)
    base, igv = e.taxed + e.taxed_discount, e.igv + e.igv_discount
    amounts = [_amount(v) for v in (base, igv, e.icbper, e.total - base - igv - e.icbper, e.total)]
    return [*full[:12], *amounts, *full[25:31], *full[32:35]]


def _old_sire(e: RegisterEntry, ruc: str, name: str, period: Period) -> list[str]:
    return [
        ruc,
        name[:1500],
        period.code,
        "",
        *_old_document(e, 1500),
        *_old_money(e),
        e.currency,
        _rate(e.rate) if e.currency != "PEN" else "",
        *_old_reference(e),
        "",
    ]


def _assert_lines_as_before(register: SalesRegister) -> None:
    ple = [e for e in register.entries if e.in_ple]
    sire = [e for e in register.entries if e.in_sire]
    adjustments = [e for e in ple if e.state in ("8", "9")]
    assert register.ple_rows() == [_old_ple(e, i) for i, e in enumerate(ple, 1)]
    assert register.ple_simplified_rows() == [_old_simplified(e, i) for i, e in enumerate(ple, 1)]
    assert register.sire_rows() == [_old_sire(e, register.ruc, register.name, register.period) for e in sire]
    assert register.adjustment_rows() == [_old_ple(e, i) for i, e in enumerate(adjustments, 1)]
    assert register.adjustment_rows(simplified=True) == [
        _old_simplified(e, i) for i, e in enumerate(adjustments, 1)
    ]
    assert register.sire_count() == len(sire)
    for index, entry in enumerate(register.entries[:50], 7):  # the one-line forms too
        assert ple_fields(entry, index) == _old_ple(entry, index)
        assert ple_simplified_fields(entry, index) == _old_simplified(entry, index)
        assert sire_fields(entry, RUC, NAME, register.period) == _old_sire(entry, RUC, NAME, register.period)
    old_totals = {
        name: sum(
            (Decimal(line[place]) for line in register.ple_rows()), Decimal("0.00") if ple else Decimal(0)
        )
        for place, name in enumerate(PLE_FIELDS[12:25], 12)
    }
    assert register.totals() == old_totals


def _frame_of_lines(register: SalesRegister) -> pd.DataFrame:
    """The page's table as the code before the columns made it: a frame of the text lines."""
    frame = pd.DataFrame(register.ple_rows(), columns=list(PLE_FIELDS))
    return frame.astype({name: float for name in PLE_FIELDS[12:25]})


def _odd_entries() -> list[RegisterEntry]:
    march = Period(2026, 3)
    day = dt.date(2026, 3, 9)
    return [
        RegisterEntry(march, "01F0011", day, "01", "F001", 1, "6", "20100070970", "ÑANDÚ | S.A.C." * 20,
                      taxed=Decimal("100.00"), igv=Decimal("18.00"), total=Decimal("118.00")),
        RegisterEntry(march, "01F0012", day, "01", "F001", 2, "6", "20100070970", "DOLARES",
                      taxed=Decimal("375.123"), igv=Decimal("67.52"), total=Decimal("442.643"),
                      currency="USD", rate=Decimal("3.7505")),
        RegisterEntry(march, "01F0013", day, "01", "F001", 3, currency="USD", rate=None,
                      taxed=Decimal("10"), total=Decimal("10")),  # dollars without a rate
        RegisterEntry(march, "07FC011", day, "07", "FC01", 1, "6", "20100070970", "NOTA",
                      taxed_discount=Decimal("-50"), igv_discount=Decimal("-9"), total=Decimal("-59"),
                      affected_date=dt.date(2026, 2, 27), affected_type="01", affected_series="F001",
                      affected_number="9"),  # a note on an earlier month's factura
        RegisterEntry(march, "07FC012", day, "07", "FC01", 2, taxed=Decimal("-1.00"), total=Decimal("-1.00"),
                      affected_type="01", affected_series="F001", affected_number="3"),  # its date unknown
        RegisterEntry(march, "01F0014", day, "01", "F001", 4, state="2", in_sire=False),  # rejected
        RegisterEntry(march, "01F0015", day, "01", "F001", 5, state="2", in_ple=False),  # voided after
        RegisterEntry(march, "03B0011", day, "03", "B001", 1, total=Decimal("0")),  # no identity, zero
        RegisterEntry(march, "03B0012", day, "03", "B001", 2, number_end=40, other=Decimal("5.005"),
                      total=Decimal("5.005")),  # consolidated, a third decimal
        RegisterEntry(march, "14R0011", day, "14", "R001", 1, due_date=dt.date(2026, 4, 9),
                      unaffected=Decimal("-0.004"), total=Decimal("-0.004")),  # rounds to zero
        RegisterEntry(Period(2026, 2), "01F0019", dt.date(2026, 2, 20), "01", "F001", 9, state="9",
                      in_sire=False),  # an earlier month's correction
        RegisterEntry(Period(2026, 2), "01F00110", dt.date(2026, 2, 25), "01", "F001", 10, state="8",
                      export=Decimal("7.50"), isc=Decimal("1.25"), icbper=Decimal("0.50"),
                      exonerated=Decimal("2"), total=Decimal("11.25"), in_sire=False),
    ]  # fmt: skip


@pytest.mark.parametrize("consolidate", [False, True])
@pytest.mark.parametrize("month", ["2026-03", "2026-04"])
@pytest.mark.parametrize("rows", [_varied_rows, _odd_rows])
def test_the_lines_of_a_month_are_the_lines_made_one_by_one(rows, month: str, consolidate: bool) -> None:  # type: ignore[no-untyped-def]
    register = SalesRegister.build(
        rows(), month, ruc=RUC, name=NAME, consolidate_boletas=consolidate, closes=CLOSES
    )
    assert len(register.entries) > 50
    _assert_lines_as_before(register)


def test_the_lines_of_odd_entries_are_the_lines_made_one_by_one() -> None:
    register = SalesRegister(Period(2026, 3), RUC, NAME, _odd_entries())
    _assert_lines_as_before(register)
    lines = {line[1]: line for line in register.ple_rows()}
    assert lines["14R0011"][4] == "09/04/2026" and lines["03B0012"][8] == "40"
    assert lines["14R0011"][18] == "0.00"  # -0.004 is zero, not "-0.00"
    assert lines["01F0012"][13] == "375.12" and lines["01F0012"][26] == "3.751"  # rounded half up
    assert "01F0015" not in lines and len(lines["01F0011"][11]) == 100


def test_the_frame_is_the_frame_of_the_lines() -> None:
    register = SalesRegister(Period(2026, 3), RUC, NAME, _odd_entries())
    whole = register.ple_frame()
    pd.testing.assert_frame_equal(whole, _frame_of_lines(register))
    shown = ["Serie", "Importe total", "Número final", "Estado", "Fecha CP modificado", "CUO"]
    pd.testing.assert_frame_equal(register.ple_frame(shown), whole[shown])
    assert all(whole[name].dtype == np.float64 for name in PLE_FIELDS[12:25])
    empty = SalesRegister(Period(2026, 3), RUC, NAME, [])
    assert list(empty.ple_frame(shown).columns) == shown and len(empty.ple_frame(shown)) == 0
    assert empty.totals() == dict.fromkeys(PLE_FIELDS[12:25], Decimal(0)) and empty.ple_count() == 0
    only_sire = SalesRegister(Period(2026, 3), RUC, NAME, [_odd_entries()[6]])  # voided after: no PLE line
    assert {str(v) for v in only_sire.totals().values()} == {"0"} and only_sire.ple_count() == 0


def test_the_frame_refuses_unknown_fields_and_the_lines_follow_the_entries() -> None:
    register = SalesRegister(Period(2026, 3), RUC, NAME, _odd_entries())
    with pytest.raises(ValueError, match="not PLE 14.1 fields: Propina"):
        register.ple_frame(["Serie", "Propina"])
    first = register.ple_rows()
    register.entries = register.entries[:3]  # other entries: other lines, not the kept ones
    assert register.ple_rows() == first[:3]
    assert len(register.ple_frame()) == 3 and register.sire_count() == 3
    register.ruc = "20100070970"
    assert {line[0] for line in register.sire_rows()} == {"20100070970"}
    assert len(SIRE_FIELDS) == len(register.sire_rows()[0])


@pytest.mark.parametrize("made", [False, True])
def test_a_page_of_the_frame_is_those_lines_of_the_whole_frame(made: bool) -> None:
    register = SalesRegister.build(_odd_rows(), "2026-03", ruc=RUC, name=NAME)
    total = register.ple_count()
    assert total == len(register.ple_rows()) > 40
    fresh = SalesRegister(register.period, RUC, NAME, register.entries)  # its lines not made yet
    if made:
        fresh.ple_rows()
    whole = register.ple_frame()
    for first, count in ((0, 10), (17, 20), (total - 3, 10), (total, 5), (0, 0)):
        page = fresh.ple_frame(first=first, count=count)
        expected = whole.iloc[first : first + count].reset_index(drop=True)
        pd.testing.assert_frame_equal(page, expected, check_dtype=bool(len(expected)))
    assert fresh.ple_frame(["Correlativo del asiento"], first=17, count=2)[
        "Correlativo del asiento"
    ].tolist() == [
        "M18",
        "M19",
    ]  # field 3 numbers the line within the month, not within the page
    with pytest.raises(ValueError, match="negative"):
        fresh.ple_frame(first=-1, count=3)
    with pytest.raises(ValueError, match="negative"):
        fresh.ple_frame(count=-3)
