"""The sales register (PLE 14.1 and SIRE RVIE) field by field against the rules of
``docs/sales_register.md``: lengths, formats, states 1/2/8/9, notes and their referenced documents, the
exchange rate, summarized boletas, file names, totals equal to the documents'."""

from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
from decimal import Decimal as D
from typing import Any

import pytest

from analysis.register import (
    PLE_FIELDS,
    PLE_SIMPLIFIED_FIELDS,
    SIRE_FIELDS,
    Period,
    SalesRegister,
    ple_file_name,
    ple_simplified_file_name,
    sire_adjustment_file_name,
    sire_file_name,
)
from analysis.sales import sales_of, summarize
from connector import DocumentRecord

RUC, NAME = "20123456786", "EMPRESA DEMO S.A.C."
MARCH = Period(2025, 3)
CLIENT = ("6", "20555555556", "CLIENTE DEMO S.A.")


def record(
    number: str,
    doc_type: str,
    day: str,
    *,
    state: str = "05",
    currency: str = "PEN",
    rate: str = "1",
    customer: tuple[str, str, str] = CLIENT,
    affected: dict[str, Any] | None = None,
    created: str | None = None,
    updated: str | None = None,
    has_cdr: bool = True,
    **amounts: str,
) -> DocumentRecord:
    series, correlative = number.split("-")
    row: dict[str, Any] = {
        "external_id": f"ext-{number}",
        "number": number,
        "series": series,
        "correlative": int(correlative),
        "date_of_issue": day,
        "document_type_id": doc_type,
        "state_type_id": state,
        "currency_type_id": currency,
        "exchange_rate_sale": rate,
        "customer_identity_document_type_id": customer[0],
        "customer_number": customer[1],
        "customer_name": customer[2],
        "affected_document": affected,
        "has_cdr": has_cdr,
        "created_at": f"{created or day} 10:00:00",
        "updated_at": f"{updated or created or day} 10:00:00",
    }
    for key in ("taxed", "exonerated", "unaffected", "exportation", "igv", "plastic_bag_taxes"):
        row[f"total_{key}"] = amounts.pop(key, "0.00")
    row["total"] = amounts.pop("total", "0.00")
    assert not amounts
    return DocumentRecord.from_row(row)


def note_on(number: str, day: str, doc_type: str = "01") -> dict[str, Any]:
    series, correlative = number.split("-")
    return {"document_type_id": doc_type, "series": series, "number": correlative, "date_of_issue": day}


RECORDS = [
    record("F001-123", "01", "2025-03-05", taxed="1000.00", igv="180.00", total="1180.00"),
    record(
        "B001-45",
        "03",
        "2025-03-07",
        state="01",
        has_cdr=False,
        customer=("1", "12345678", "PÉREZ GÓMEZ JUAN"),
        taxed="50.00",
        igv="9.00",
        plastic_bag_taxes="0.50",
        total="59.50",
    ),
    record(
        "FC01-7",
        "07",
        "2025-03-20",
        affected=note_on("F001-123", "2025-03-05"),
        taxed="200.00",
        igv="36.00",
        total="236.00",
    ),
    record(
        "FC01-8",
        "07",
        "2025-03-21",
        affected=note_on("F001-98", "2025-02-27"),
        taxed="100.00",
        igv="18.00",
        total="118.00",
    ),
    record(
        "F001-124",
        "01",
        "2025-03-10",
        currency="USD",
        rate="3.725",
        taxed="500.00",
        igv="90.00",
        total="590.00",
    ),
    record("F001-125", "01", "2025-03-12", state="11", taxed="10.00", igv="1.80", total="11.80"),
    record("F001-126", "01", "2025-03-13", state="09", taxed="20.00", igv="3.60", total="23.60"),
    # February: arrived in March after February was closed (state 8); recorded in February and voided in
    # March, after the close (state 9)
    record("F001-99", "01", "2025-02-27", created="2025-03-01", taxed="300.00", igv="54.00", total="354.00"),
    record(
        "F001-97",
        "01",
        "2025-02-26",
        state="11",
        updated="2025-03-03",
        taxed="5.00",
        igv="0.90",
        total="5.90",
    ),
    # March, voided in April after March was closed: as it was filed
    record(
        "F001-127",
        "01",
        "2025-03-31",
        state="11",
        updated="2025-04-02",
        taxed="40.00",
        igv="7.20",
        total="47.20",
    ),
    # April: not in March's register
    record("F001-128", "01", "2025-04-01", taxed="1.00", igv="0.18", total="1.18"),
]


#: February filed on 01/03 at 09:00 (before F001-99 arrived, 10:00) and March on 01/04 at 12:00 (before
#: F001-127 was voided on 02/04): what makes states 8 and 9 (Lima times, naive).
CLOSES = {"2025-02": dt.datetime(2025, 3, 1, 9, 0), "2025-03": dt.datetime(2025, 4, 1, 12, 0)}


@pytest.fixture(scope="module")
def register() -> SalesRegister:
    return SalesRegister.build(RECORDS, "2025-03", ruc=RUC, name=NAME, closes=CLOSES)


def lines(text: str) -> list[list[str]]:
    assert text.endswith("|\r\n") or text == ""
    return [line.split("|") for line in text.split("\r\n") if line]


def by_number(rows: list[list[str]], series_at: int) -> dict[str, list[str]]:
    return {f"{row[series_at]}-{row[series_at + 1]}": row for row in rows}


def test_file_names() -> None:
    assert ple_file_name(RUC, MARCH, has_data=True) == "LE2012345678620250300140100001111.TXT"
    assert ple_file_name(RUC, MARCH, has_data=False) == "LE2012345678620250300140100001011.TXT"
    assert len(ple_file_name(RUC, MARCH, has_data=True)) == 33 + 4
    assert sire_file_name(RUC, MARCH, has_data=True) == "LE2012345678620250300140400021112.TXT"


def test_every_ple_line_has_35_fields_and_a_trailing_pipe(register: SalesRegister) -> None:
    rows = lines(register.ple_text())
    assert len(rows) == 11 - 1  # April out; F001-127 in March as it stood
    for row in rows:
        assert len(row) == 36 and row[-1] == "", row  # 35 fields + the empty part after the last pipe
    assert len(PLE_FIELDS) == 35 and len(SIRE_FIELDS) == 33


def test_ple_fields_follow_their_formats(register: SalesRegister) -> None:
    money = re.compile(r"-?\d{1,12}\.\d{2}")
    for row in lines(register.ple_text()):
        assert re.fullmatch(r"\d{6}00", row[0])
        assert 0 < len(row[1]) <= 40 and "&" not in row[1]
        assert re.fullmatch(r"M\d{1,9}", row[2])
        assert re.fullmatch(r"\d{2}/\d{2}/\d{4}", row[3])
        assert row[4] == ""  # due date: only for type 14
        assert row[5] in ("01", "03", "07", "08")
        assert re.fullmatch(r"[FB][A-Z0-9]{3}", row[6]) and re.fullmatch(r"[1-9]\d{0,7}", row[7])
        assert row[9] in ("", "0", "1", "4", "6", "7", "A")
        if row[9] == "6":
            assert re.fullmatch(r"\d{11}", row[10])
        if row[9] == "1":
            assert re.fullmatch(r"\d{8}", row[10])
        assert len(row[11]) <= 100 and not re.search(r"[|/\\]", row[11]) and row[11].isascii()
        for value in row[12:25]:
            assert money.fullmatch(value), value
        assert re.fullmatch(r"[A-Z]{3}", row[25]) and re.fullmatch(r"\d\.\d{3}", row[26])
        assert row[34] in ("1", "2", "8", "9")
        # fields 13..24 add up to the total (25)
        assert sum(D(v) for v in row[12:24]) == D(row[24])


def test_ple_lines_by_case(register: SalesRegister) -> None:
    rows = by_number(lines(register.ple_text()), 6)
    assert "|".join(rows["F001-123"]) == (
        "20250300|01F001123|M1|05/03/2025||01|F001|123||6|20555555556|CLIENTE DEMO S.A.|0.00|1000.00|0.00|"
        "180.00|0.00|0.00|0.00|0.00|0.00|0.00|0.00|0.00|1180.00|PEN|1.000||||||||1|"
    )
    boleta = rows["B001-45"]
    assert boleta[9:12] == ["1", "12345678", "PEREZ GOMEZ JUAN"]  # folded to ASCII
    assert (boleta[13], boleta[15], boleta[22], boleta[24]) == ("50.00", "9.00", "0.50", "59.50")
    same_month = rows["FC01-7"]  # credit note on a document of the month: negative base and IGV
    assert (same_month[13], same_month[14], same_month[15], same_month[16]) == (
        "-200.00",
        "0.00",
        "-36.00",
        "0.00",
    )
    assert same_month[24] == "-236.00" and same_month[27:31] == ["05/03/2025", "01", "F001", "123"]
    earlier = rows["FC01-8"]  # on February's F001-98: discount columns
    assert (earlier[13], earlier[14], earlier[15], earlier[16]) == ("0.00", "-100.00", "0.00", "-18.00")
    assert earlier[24] == "-118.00" and earlier[27:31] == ["27/02/2025", "01", "F001", "98"]
    dollars = rows["F001-124"]  # converted at its own rate, the rate in field 27
    assert (dollars[13], dollars[15], dollars[24]) == ("1862.50", "335.25", "2197.75")
    assert (dollars[25], dollars[26]) == ("USD", "3.725")
    for voided in ("F001-125", "F001-126"):  # voided, rejected: state 2, every amount zero
        assert rows[voided][34] == "2" and set(rows[voided][12:25]) == {"0.00"}
    late = rows["F001-99"]  # February's, registered in March
    assert (late[0], late[34], late[24]) == ("20250200", "8", "354.00")
    corrected = rows["F001-97"]  # February's, voided in March: correction at zero, same CUO
    assert (corrected[0], corrected[1], corrected[34]) == ("20250200", "01F00197", "9")
    assert set(corrected[12:25]) == {"0.00"}
    as_it_stood = rows["F001-127"]  # voided in April: in March with its amounts
    assert (as_it_stood[34], as_it_stood[24]) == ("1", "47.20")
    assert "F001-128" not in rows


def test_ple_sorting_and_entry_numbers(register: SalesRegister) -> None:
    rows = lines(register.ple_text())
    assert [row[2] for row in rows] == [f"M{i}" for i in range(1, len(rows) + 1)]
    month = [row for row in rows if row[34] in ("1", "2")]
    keys = [(row[3][6:] + row[3][3:5] + row[3][:2], row[5], row[6], int(row[7])) for row in month]
    assert keys == sorted(keys)
    assert {row[34] for row in rows[-2:]} == {"8", "9"}  # earlier periods last


def test_a_late_document_voided_goes_after_the_months_own_lines() -> None:
    """A February factura that arrived after February was closed, and was voided, is March's line of
    February (state 2, field 1 its own period), after March's own lines however early its date."""
    records = [
        record("F001-2", "01", "2025-03-05", taxed="1.00", igv="0.18", total="1.18"),
        record("F001-1", "01", "2025-02-27", created="2025-03-01", state="11", total="1.18", taxed="1.00"),
    ]
    rows = SalesRegister.build(records, "2025-03", ruc=RUC, name=NAME, closes=CLOSES).ple_rows()
    assert [(row[0], row[7], row[34]) for row in rows] == [("20250300", "2", "1"), ("20250200", "1", "2")]


def test_sire_lines(register: SalesRegister) -> None:
    rows = lines(register.sire_text())
    for row in rows:
        assert len(row) == 34 and row[-1] == ""
        assert row[:4] == [RUC, NAME, "202503", ""]  # CAR empty: SUNAT fills it
        assert sum(D(v) for v in row[13:25]) == D(row[25])
        assert row[27] == "" if row[26] == "PEN" else re.fullmatch(r"\d\.\d{3}", row[27])
    found = by_number(rows, 7)
    assert "|".join(found["F001-123"]) == (
        "20123456786|EMPRESA DEMO S.A.C.|202503||05/03/2025||01|F001|123||6|20555555556|CLIENTE DEMO S.A.|"
        "0.00|1000.00|0.00|180.00|0.00|0.00|0.00|0.00|0.00|0.00|0.00|0.00|1180.00|PEN|||||||"
    )
    assert found["F001-124"][26:28] == ["USD", "3.725"] and found["F001-124"][25] == "2197.75"
    assert found["FC01-8"][15] == "-100.00" and found["FC01-8"][17] == "-18.00"
    assert set(found["F001-125"][13:26]) == {"0.00"}  # voided: zeros
    assert set(found["F001-127"][13:26]) == {"0.00"}  # voided since: as SUNAT's proposal shows it now
    assert "F001-126" not in found  # rejected: SUNAT has no such CPE
    assert "F001-99" not in found and "F001-97" not in found  # adjustments of earlier periods: not here


def test_totals_equal_the_documents(register: SalesRegister) -> None:
    totals = register.totals()
    # 1180 + 59.50 - 236 - 118 + 2197.75 + 354 (state 8) + 47.20 (voided after the month)
    assert totals["Importe total"] == D("3484.45")
    in_march = [r for r in RECORDS if r.date_of_issue and MARCH.contains(r.date_of_issue)]
    rows = [r.raw for r in in_march if r.number != "F001-127"]
    figures = summarize(sales_of(rows)).soles
    assert figures.total + D("354.00") + D("47.20") == totals["Importe total"]
    assert figures.igv + D("54.00") + D("7.20") == totals["IGV / IPM"] + totals["Descuento IGV / IPM"]


def test_warnings(register: SalesRegister) -> None:
    text = "\n".join(register.warnings)
    assert "B001-45: boleta aún no declarada" in text
    assert "F001-127: anulado después del cierre del mes" in text


def test_unknown_rate_and_missing_reference_are_warned() -> None:
    records = [
        record("F001-1", "01", "2025-03-02", currency="USD", taxed="10.00", igv="1.80", total="11.80"),
        record("FC01-1", "07", "2025-03-03", affected=None, taxed="1.00", igv="0.18", total="1.18"),
        record(
            "FC01-2",
            "07",
            "2025-03-03",
            affected={"series": "F001", "number": "9"},
            total="1.00",
            taxed="1.00",
        ),
    ]
    register = SalesRegister.build(records, "2025-03", ruc=RUC, name=NAME)
    text = "\n".join(register.warnings)
    assert "F001-1: en USD sin tipo de cambio" in text
    assert "FC01-1: nota sin documento modificado" in text
    assert "FC01-2: no se conoce la fecha del documento modificado" in text


def test_boletas_under_700_summarized_per_day_and_series() -> None:
    people = ("-", "-", "CLIENTES VARIOS")
    records = [
        record(f"B001-{n}", "03", "2025-03-14", customer=people, taxed="28.00", igv="5.04", total="33.04")
        for n in range(46, 61)
    ]
    records.insert(5, record("B001-51", "03", "2025-03-14", taxed="700.00", igv="126.00", total="826.00"))
    records = [r for r in records if not (r.number == "B001-51" and r.total == D("33.04"))]
    register = SalesRegister.build(records, MARCH, ruc=RUC, name=NAME, consolidate_boletas=True)
    rows = lines(register.ple_text())
    assert [(row[7], row[8]) for row in rows] == [("46", "50"), ("51", ""), ("52", "60")]
    first = rows[0]
    assert first[9:12] == ["", "", ""] and first[24] == "165.20"  # 5 x 33.04
    assert rows[1][24] == "826.00"  # >= S/ 700: always alone


def test_an_empty_month() -> None:
    register = SalesRegister.build([], "2025-03", ruc=RUC, name=NAME)
    assert register.ple_text() == "" and register.ple_name.endswith("00140100001011.TXT")


def test_files_zip_and_excel(register: SalesRegister, tmp_path: Any) -> None:
    written = register.write(tmp_path)
    names = sorted(p.name for p in written)
    assert names == sorted(
        [
            "LE2012345678620250300140100001111.TXT",
            "LE2012345678620250300140400021112.zip",
            "registro_ventas_202503.xlsx",
        ]
    )
    with zipfile.ZipFile(io.BytesIO((tmp_path / names[1]).read_bytes())) as archive:
        assert archive.namelist() == ["LE2012345678620250300140400021112.TXT"]
        assert archive.read(archive.namelist()[0]).decode("ascii") == register.sire_text()
    from openpyxl import load_workbook

    book = load_workbook(tmp_path / "registro_ventas_202503.xlsx")
    ple = book["PLE 14.1"]
    assert [c.value for c in ple[1]][:3] == ["Periodo", "CUO", "Correlativo del asiento"]
    first = [c.value for c in ple[2]]
    assert (
        first[3] == dt.datetime(2025, 3, 5)
        and first[24] == 1180
        and ple.cell(2, 25).number_format == "#,##0.00"
    )
    assert book["SIRE RVIE"].max_row == len(register.sire_rows()) + 1


def test_period_parsing() -> None:
    assert (
        Period.of("2025-03") == Period.of("202503") == Period.of("03/2025") == Period.of(dt.date(2025, 3, 9))
    )
    assert Period(2024, 2).end == dt.date(2024, 2, 29)
    with pytest.raises(ValueError):
        Period.of("2025-13")
    with pytest.raises(ValueError):
        Period.of("marzo")


PROPOSAL_HEADER = (
    "Ruc|Razon Social|Periodo|CAR SUNAT|Fecha de emisión|Fecha Vcto/Pago|Tipo CP/Doc.|Serie del CDP|"
    "Nro CP o Doc. Nro Inicial (Rango)|Nro Final (Rango)|Tipo Doc Identidad|Nro Doc Identidad|"
    "Apellidos Nombres/ Razón Social|Valor Facturado Exportación|BI Gravada|Dscto BI|IGV / IPM|"
    "Dscto IGV / IPM|"
    "Mto Exonerado|Mto Inafecto|ISC|BI Grav IVAP|IVAP|ICBPER|Otros Tributos|Total CP|Moneda|Tipo Cambio|"
    "Fecha Emisión Doc Modificado|Tipo CP Modificado|Serie CP Modificado|Nro CP Modificado|"
    "ID Proyecto Operadores Atribución|Tipo de Nota|Est. Comp|Valor FOB Embarcado|Valor OP Gratuitas|"
    "Tipo Operación|DAM / CP|CLU"
)


def proposal_from(register: SalesRegister, change: dict[str, dict[int, str]], drop: str, extra: str) -> bytes:
    """SUNAT's proposal as its export looks: a header, 40 columns, CAR filled, numbers without zeros."""
    out = [PROPOSAL_HEADER]
    for row in register.sire_rows():
        key = f"{row[7]}-{row[8]}"
        if key == drop:
            continue
        full = list(row) + ["", "1", "", "0", "0101", "", ""]
        full[3] = f"{RUC}{row[6]}{row[7]}{row[8].zfill(10)}"
        full[12] = full[12].replace("PEREZ GOMEZ", "PÉREZ GÓMEZ")  # SUNAT keeps the accents
        full[27] = full[27] or "1.000"
        for column, value in change.get(key, {}).items():
            full[column] = value
        out.append("|".join(full))
    out.append(extra)
    return ("\r\n".join(out) + "\r\n").encode("utf-8")


def test_comparison_with_sunats_proposal(register: SalesRegister) -> None:
    same = register.compare_with_proposal(proposal_from(register, {}, "", ""))
    assert same.matches and same.common == len(register.sire_rows())
    extra = "|".join([RUC, NAME, "202503", "x", "30/03/2025", "", "01", "F001", "200"] + ["0.00"] * 31)
    proposal = proposal_from(register, {"F001-123": {16: "181.00"}}, "B001-45", extra)
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("propuesta.txt", proposal)
    found = register.compare_with_proposal(zipped.getvalue())
    assert found.only_in_proposal == ["01-F001-200"]
    assert found.only_ours == ["03-B001-45"]
    assert [(d["comprobante"], d["campo"], d["sunat"], d["nuestro"]) for d in found.differences] == [
        ("01-F001-123", 17, "181.00", "180.00")
    ]
    assert "FALTA en lo nuestro: 01-F001-200" in found.report


def test_a_history_loaded_later_stays_in_its_own_months() -> None:
    """Documents registered weeks after their date (an import, the demo's seeding) are not late operations:
    each month keeps its own, none becomes state 8 of the month they were loaded in."""
    records = [
        record("F001-1", "01", "2025-01-15", created="2025-03-20", taxed="1.00", igv="0.18", total="1.18"),
        record("F001-2", "01", "2025-03-02", created="2025-03-20", taxed="1.00", igv="0.18", total="1.18"),
    ]
    march = SalesRegister.build(records, "2025-03", ruc=RUC, name=NAME)
    assert [row[7] for row in march.ple_rows()] == ["2"]
    january = SalesRegister.build(records, "2025-01", ruc=RUC, name=NAME)
    assert [(row[7], row[34]) for row in january.ple_rows()] == [("1", "1")]


# ----------------------------------------------------------------------- PLE 14.2 and SIRE adjustments


def test_simplified_file_names() -> None:
    assert ple_simplified_file_name(RUC, MARCH, has_data=True) == "LE2012345678620250300140200001111.TXT"
    assert ple_simplified_file_name(RUC, MARCH, has_data=False) == "LE2012345678620250300140200001011.TXT"
    general = sire_adjustment_file_name(RUC, MARCH, simplified=False, has_data=True)
    assert general == "LE2012345678620250300140400041112" + "01.TXT"
    simplified = sire_adjustment_file_name(RUC, MARCH, simplified=True, has_data=False, sequence=3)
    assert simplified == "LE2012345678620250300140400051012" + "03.TXT"
    with pytest.raises(ValueError, match="sequence"):
        sire_adjustment_file_name(RUC, MARCH, simplified=True, has_data=True, sequence=100)


def test_ple_simplified_has_26_fields_that_add_up(register: SalesRegister) -> None:
    rows = lines(register.ple_simplified_text())
    full = register.ple_rows()
    assert len(rows) == len(full) and len(PLE_SIMPLIFIED_FIELDS) == 26
    for row, long in zip(rows, full, strict=True):
        assert len(row) == 27 and row[-1] == ""  # 26 fields and the trailing pipe
        assert row[:12] == long[:12]  # period ... customer: the same fields
        assert row[17:23] == long[25:31] and row[23:26] == long[32:35]  # currency ... reference; 33-35
        assert row[14] == long[22] and row[16] == long[24]  # ICBPER, total
        assert D(row[12]) == D(long[13]) + D(long[14])  # base with its discount
        assert D(row[13]) == D(long[15]) + D(long[16])  # IGV with its discount
        assert sum(D(text) for text in row[12:16]) == D(row[16])  # 13+14+15+16 = 17
        assert all(re.fullmatch(r"-?\d+\.\d\d", text) and text != "-0.00" for text in row[12:17])


def test_ple_simplified_lines_by_case(register: SalesRegister) -> None:
    rows = by_number(lines(register.ple_simplified_text()), 6)
    assert rows["F001-123"][12:18] == ["1000.00", "180.00", "0.00", "0.00", "1180.00", "PEN"]
    assert rows["B001-45"][12:17] == ["50.00", "9.00", "0.50", "0.00", "59.50"]
    # a note on February's factura: its base and IGV (discount columns in 14.1) in 13 and 14
    assert rows["FC01-8"][12:17] == ["-100.00", "-18.00", "0.00", "0.00", "-118.00"]
    assert rows["FC01-8"][19:23] == ["27/02/2025", "01", "F001", "98"]
    assert rows["F001-124"][12:19] == ["1862.50", "335.25", "0.00", "0.00", "2197.75", "USD", "3.725"]
    assert rows["F001-125"][25] == "2" and rows["F001-99"][25] == "8" and rows["F001-97"][25] == "9"


def test_other_charges_of_the_simplified_layout() -> None:
    """14.2 has no export, exonerated, unaffected nor ISC columns: what the total carries besides the
    taxed base, IGV and ICBPER is in field 16, so the line still adds up."""
    mixed = record(
        "F001-1", "01", "2025-03-03", taxed="100.00", igv="18.00", exonerated="50.00", unaffected="7.00",
        exportation="20.00", plastic_bag_taxes="0.50", total="196.50",
    )  # fmt: skip
    (row,) = SalesRegister.build([mixed], MARCH, ruc=RUC, name=NAME).ple_simplified_rows()
    assert row[12:17] == ["100.00", "18.00", "0.50", "78.00", "196.50"]


def test_adjustment_files_carry_only_states_8_and_9(register: SalesRegister, tmp_path: Any) -> None:
    general = lines(register.adjustment_text())
    assert [(row[6] + "-" + row[7], row[0], row[2], row[34]) for row in general] == [
        ("F001-97", "20250200", "M1", "9"),
        ("F001-99", "20250200", "M2", "8"),
    ]
    assert all(len(row) == 36 for row in general)  # 14.1 layout (Anexo 5.1)
    full = {row[1]: row for row in register.ple_rows()}
    assert [row[3:35] for row in general] == [full[row[1]][3:] for row in general]  # the PLE's lines
    simplified = lines(register.adjustment_text(simplified=True))
    assert [len(row) for row in simplified] == [27, 27] and [r[25] for r in simplified] == ["9", "8"]
    written = register.write(tmp_path, ["adjustments", "adjustments-simplified", "ple-simplified"])
    assert [p.name for p in written] == [
        "LE2012345678620250300140400041112" + "01.zip",
        "LE2012345678620250300140400051112" + "01.zip",
        "LE2012345678620250300140200001111.TXT",
    ]
    with zipfile.ZipFile(written[0]) as archive:
        assert archive.namelist() == ["LE2012345678620250300140400041112" + "01.TXT"]
        assert archive.read(archive.namelist()[0]).decode("ascii") == register.adjustment_text()
    assert written[2].read_bytes().decode("ascii") == register.ple_simplified_text()


def test_a_month_without_adjustments() -> None:
    plain = SalesRegister.build(RECORDS[:2], MARCH, ruc=RUC, name=NAME)
    assert plain.adjustment_rows() == [] and plain.adjustment_text(simplified=True) == ""
    assert plain.adjustment_name() == "LE2012345678620250300140400041012" + "01.TXT"
    with pytest.raises(ValueError, match="unknown kind"):
        plain.write(".", ["ple-14.2"])


def test_the_register_is_reconciled_with_the_months_sales(register: SalesRegister) -> None:
    """Every difference from the month's sales figures (``analysis.sales``, what Documentos shows) is
    named with its documents, and nothing is left unexplained."""
    from analysis.register import Figures

    in_march = [r.raw for r in RECORDS if r.date_of_issue and MARCH.contains(r.date_of_issue)]
    soles = summarize(sales_of(in_march)).soles
    reconciled = register.reconcile(Figures(soles.value, soles.igv, soles.total))
    named = {d.reason: (d.documents, d.figures) for d in reconciled.differences}
    assert named == {
        "De meses anteriores, llegaron después de su cierre (estado 8)": (
            ("F001-99",),
            Figures(D("300.00"), D("54.00"), D("354.00")),
        ),
        "Anulados después del cierre del mes: figuran como se presentaron (estado 1)": (
            ("F001-127",),
            Figures(D("40.00"), D("7.20"), D("47.20")),
        ),
    }
    assert reconciled.agrees and reconciled.unexplained == Figures(D("0.00"), D("0.00"), D("0.00"))
    assert reconciled.register.total == register.totals()["Importe total"]
    off = register.reconcile(Figures(soles.value, soles.igv, soles.total - D("1.00")))
    assert not off.agrees and off.unexplained.total == D("1.00")
    assert register.pending() == {"cdr": [], "summary": ["B001-45"]}
