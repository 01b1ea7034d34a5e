"""The sales boxes of the month's Formulario Virtual 621 (:mod:`analysis.igv`): each box's figure and the
lines behind it, what no box takes, and its agreement with the register of the same month, line by line,
over generated months (``docs/igv_declaration.md``)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D
from typing import Any

import pytest

from analysis.igv import BOXES, monthly_igv
from analysis.register import PLE_FIELDS, Period, RegisterEntry, SalesRegister
from tests.analysis.test_register_store import CLOSES, _varied_rows
from tests.analysis.test_register_typed import _odd_rows

RUC, NAME = "20601030013", "EMPRESA DEMO S.A.C."
NOVEMBER = Period(2026, 11)
DAY = dt.date(2026, 11, 12)


def line(cuo: str, doc_type: str, number: str, **values: Any) -> RegisterEntry:
    series, correlative = number.split("-")
    fields: dict[str, Any] = {"period": NOVEMBER, "date": DAY, **values}
    return RegisterEntry(
        cuo=cuo, document_type=doc_type, series=series, number=int(correlative), source=number, **fields
    )


MONTH = [
    line("1", "01", "F001-1", taxed=D("1000.00"), igv=D("180.00"), total=D("1180.00")),
    line("2", "03", "B001-1", taxed=D("50.00"), igv=D("9.00"), icbper=D("0.50"), total=D("59.50")),
    # a credit note on this month's factura subtracts in 100/101
    line("3", "07", "FC01-1", taxed=D("-200.00"), igv=D("-36.00"), total=D("-236.00"), affected_series="F"),
    # a credit note on October's factura: 102/103, positive
    line(
        "4", "07", "FC01-2", taxed_discount=D("-100.00"), igv_discount=D("-18.00"), total=D("-118.00"),
        affected_date=dt.date(2026, 10, 30),
    ),
    line("5", "08", "FD01-1", taxed=D("10.00"), igv=D("1.80"), total=D("11.80")),
    # a factura in dollars: US$ 500 + 90 at 3.725, already in soles on its line
    line(
        "6", "01", "F001-2", taxed=D("1862.50"), igv=D("335.25"), total=D("2197.75"), currency="USD",
        rate=D("3.725"),
    ),
    line("7", "01", "F001-3", export=D("745.00"), total=D("745.00"), currency="USD", rate=D("3.725")),
    line("8", "03", "B001-2", exonerated=D("30"), unaffected=D("12.00"), other=D("3.00"), total=D("45.00")),
    line("9", "01", "F001-4", state="2"),  # voided in the month: no amounts
    # October's factura registered only now (state 8): it corrects October's 621, not November's
    line(
        "10", "01", "F001-0", period=Period(2026, 10), date=dt.date(2026, 10, 31), state="8",
        taxed=D("300.00"), igv=D("54.00"), total=D("354.00"), in_sire=False,
    ),
]  # fmt: skip


def test_each_box_its_figure_and_its_documents() -> None:
    declaration = monthly_igv(SalesRegister(NOVEMBER, RUC, NAME, MONTH))
    amounts = {box.number: box.amount for box in declaration.boxes}
    assert amounts == {
        "100": D("2722.50"),  # 1000 + 50 - 200 + 10 + 1862.50
        "101": D("490.05"),
        "102": D("100.00"),
        "103": D("18.00"),
        "106": D("745.00"),
        "105": D("42.00"),
    }
    assert declaration.output_igv == D("472.05")  # 131 = 101 - 103
    documents = {box.number: [e.source for e in box.lines] for box in declaration.boxes}
    assert documents["100"] == ["F001-1", "B001-1", "FC01-1", "FD01-1", "F001-2"]
    assert documents["102"] == documents["103"] == ["FC01-2"]
    assert documents["106"] == ["F001-3"] and documents["105"] == ["B001-2"]
    assert declaration.box("100").line_amounts[2] == D("-200.00")  # the note subtracts
    # what the notes did to the figure
    assert declaration.box("100").by_document_type() == {
        "01": D("2862.50"),
        "03": D("50.00"),
        "07": D("-200.00"),
        "08": D("10.00"),
    }
    assert declaration.box("102").by_document_type() == {"07": D("100.00")}
    outside = {o.name: (o.amount, [e.source for e in o.lines]) for o in declaration.outside}
    assert outside["ICBPER"] == (D("0.50"), ["B001-1"])
    assert outside["Otros tributos y cargos"] == (D("3.00"), ["B001-2"])
    assert outside["ISC"] == (D("0.00"), [])
    assert [e.source for e in declaration.voided] == ["F001-4"]
    assert [e.source for e in declaration.earlier] == ["F001-0"]
    assert [e.source for e in declaration.foreign] == ["F001-2", "F001-3"]
    # the month's own lines add up to the boxes, plus what no box takes
    assert declaration.total == sum((e.total for e in declaration.own), D("0")) == D("3885.05")
    assert declaration.total == D("2722.50") + D("490.05") - D("100") - D("18") + D("745") + D("42") + D(
        "3.50"
    )


def test_an_empty_month_and_a_box_it_does_not_fill() -> None:
    declaration = monthly_igv(SalesRegister(NOVEMBER, RUC, NAME, []))
    assert all(box.amount == 0 and not box.lines for box in declaration.boxes)
    assert declaration.output_igv == 0 and not declaration.own and not declaration.earlier
    with pytest.raises(KeyError, match="127"):
        declaration.box("127")  # exports shipped: the documents do not say when


# the PLE fields each box reads (0-based places in the line), with the sign the form writes them
FIELDS_OF_BOX = {
    "100": ((13, 1),),
    "101": ((15, 1),),
    "102": ((14, -1),),
    "103": ((16, -1),),
    "106": ((12, 1),),
    "105": ((17, 1), (18, 1)),
}
FIELDS_OUTSIDE = {"ICBPER": 22, "ISC": 19, "Otros tributos y cargos": 23}


@pytest.mark.parametrize("month", ["2026-03", "2026-04"])
@pytest.mark.parametrize("rows", [_varied_rows, _odd_rows])
def test_the_boxes_agree_with_the_register_of_the_month_line_by_line(rows, month: str) -> None:  # type: ignore[no-untyped-def]
    register = SalesRegister.build(rows(), month, ruc=RUC, name=NAME, closes=CLOSES)  # April: 8 and 9 lines
    declaration = monthly_igv(register)
    ple = [e for e in register.entries if e.in_ple]
    written = dict(zip(ple, register.ple_rows(), strict=True))
    assert len(ple) > 50
    own = [e for e in ple if written[e][0] == f"{register.period}00"]
    assert list(declaration.own) == own  # the month's own lines: field 1 is the month
    assert list(declaration.earlier) == [e for e in ple if e not in set(own)]
    # every line: what each box takes of it is what its PLE line writes in the box's fields
    for box in declaration.boxes:
        taken = dict(zip(box.lines, box.line_amounts, strict=True))
        for entry in own:
            expected = sum(
                (sign * D(written[entry][place]) for place, sign in FIELDS_OF_BOX[box.number]), D("0")
            )
            assert taken.get(entry, D("0")) == expected, (box.number, entry.source)
        assert box.amount == sum(box.line_amounts, D("0"))
    for extra in declaration.outside:
        taken = dict(zip(extra.lines, extra.line_amounts, strict=True))
        for entry in own:
            assert taken.get(entry, D("0")) == D(written[entry][FIELDS_OUTSIDE[extra.name]])
    # the register's totals are the boxes plus the earlier periods' lines, column by column
    totals = register.totals()
    earlier = {
        name: sum((D(written[e][place]) for e in declaration.earlier), D("0"))
        for place, name in enumerate(PLE_FIELDS)
        if 12 <= place < 25
    }
    boxed = {b.number: b.amount for b in declaration.boxes}
    assert totals["Base imponible gravada"] == boxed["100"] + earlier["Base imponible gravada"]
    assert totals["IGV / IPM"] == boxed["101"] + earlier["IGV / IPM"]
    assert totals["Descuento base imponible"] == -boxed["102"] + earlier["Descuento base imponible"]
    assert totals["Descuento IGV / IPM"] == -boxed["103"] + earlier["Descuento IGV / IPM"]
    assert totals["Valor facturado exportación"] == boxed["106"] + earlier["Valor facturado exportación"]
    assert (
        totals["Exonerado"] + totals["Inafecto"] == boxed["105"] + earlier["Exonerado"] + earlier["Inafecto"]
    )
    assert totals["Importe total"] == declaration.total + earlier["Importe total"]
    assert list(declaration.foreign) == [e for e in own if e.currency != "PEN"]
    assert [b.number for b in declaration.boxes] == [rule.number for rule in BOXES]
