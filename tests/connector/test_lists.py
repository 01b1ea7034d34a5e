"""Lists: typed records, DataFrames with proper dtypes, real tenants' d-m-Y dates and numeric strings,
find() to reconcile, and the time to build a 20,000-row DataFrame."""

from __future__ import annotations

import copy
import datetime as dt
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

import pandas as pd
import pytest

from connector import Client, DocumentList, DocumentRecord
from connector.builders import Customer, Invoice, Line, Receipt
from connector.frames import CATEGORY_COLUMNS, DOCUMENT_COLUMNS
from connector.lists import in_range
from sunat.calendar import peru_today
from tests.connector.standin import Answer, StandIn
from tests.samples.bodies import invoice_body

#: A list row as a P5 tenant sends it (reference §8.3): d-m-Y dates, amounts as strings, no series key.
REAL_TENANT_ROW = {
    "id": 1523,
    "group_id": "01",
    "soap_type_id": "02",
    "soap_type_description": "Producción",
    "date_of_issue": "21-07-2026",
    "date_of_due": "21-07-2026",
    "number": "F001-1523",
    "customer_name": "EMPRESA XYZ S.A.C.",
    "customer_number": "20601030013",
    "customer_telephone": None,
    "currency_type_id": "PEN",
    "total_exportation": "0.00",
    "total_free": "0.00",
    "total_unaffected": "0.00",
    "total_exonerated": "0.00",
    "total_taxed": "1,000.00",
    "total_igv": "180.00",
    "total": "1,180.00",
    "state_type_id": "05",
    "state_type_description": "Aceptado",
    "document_type_description": "FACTURA ELECTRÓNICA",
    "document_type_id": "01",
    "has_xml": 1,
    "has_pdf": 1,
    "has_cdr": "0",
    "download_xml": "https://empresa.pe/downloads/document/xml/0b4a",
    "download_pdf": "https://empresa.pe/downloads/document/pdf/0b4a",
    "download_cdr": "",
    "external_id": "0b4a6c3e-1111-4222-8333-444455556666",
    "balance": "0.00",
    "created_at": "2026-07-21 10:11:12",
}


def real_rows() -> list[dict]:
    second = copy.deepcopy(REAL_TENANT_ROW)
    second.update(
        id=1524,
        number="B001-88",
        date_of_issue="2026-07-22",  # a P9 tenant, or a mixed answer
        total=59,
        total_taxed=50.0,
        total_igv="9",
        document_type_id="03",
        currency_type_id="USD",
        has_cdr=True,
        download_cdr=None,
    )
    return [REAL_TENANT_ROW, second]


def test_records_from_a_real_tenant_row() -> None:
    first, second = DocumentList(real_rows())
    assert isinstance(first, DocumentRecord)
    assert first.date_of_issue == dt.date(2026, 7, 21)
    assert (first.series, first.correlative, first.id) == ("F001", 1523, 1523)
    assert first.total == Decimal("1180.00") and first.total_taxed == Decimal("1000.00")
    assert first.total_plastic_bag_taxes == Decimal(0)  # real tenants do not send it
    assert (first.has_xml, first.has_pdf, first.has_cdr) == (True, True, False)
    assert first.raw["balance"] == "0.00"
    assert second.date_of_issue == dt.date(2026, 7, 22) and second.total == Decimal(59)
    assert (second.series, second.correlative) == ("B001", 88) and second.download_cdr == ""


def test_dataframe_of_a_real_tenant_answer() -> None:
    frame = DocumentList(real_rows()).to_dataframe()
    assert list(frame.columns) == list(DOCUMENT_COLUMNS)
    assert frame["date_of_issue"].tolist() == [pd.Timestamp("2026-07-21"), pd.Timestamp("2026-07-22")]
    assert frame["total"].tolist() == [1180.0, 59.0] and frame["total_taxed"].tolist() == [1000.0, 50.0]
    assert frame["total_igv"].tolist() == [180.0, 9.0] and frame["total_plastic_bag_taxes"].tolist() == [0, 0]
    assert frame["series"].tolist() == ["F001", "B001"] and frame["correlative"].tolist() == [1523, 88]
    assert frame["has_cdr"].tolist() == [False, True] and frame["download_cdr"].tolist() == ["", ""]
    assert_dtypes(frame)


def assert_dtypes(frame: pd.DataFrame) -> None:
    assert pd.api.types.is_datetime64_any_dtype(frame["date_of_issue"])
    for column in ("total_exportation", "total_free", "total_unaffected", "total_exonerated", "total_taxed"):
        assert frame[column].dtype == "float64"
    assert frame["total"].dtype == "float64" and frame["total_igv"].dtype == "float64"
    for column in CATEGORY_COLUMNS:
        assert isinstance(frame[column].dtype, pd.CategoricalDtype), column
    assert frame["id"].dtype == "Int64" and frame["correlative"].dtype == "Int64"
    for column in ("has_xml", "has_pdf", "has_cdr"):
        assert frame[column].dtype == bool
    for column in ("external_id", "number", "customer_name", "customer_number", "download_xml"):
        assert pd.api.types.is_string_dtype(frame[column]), column


def test_empty_list_gives_an_empty_typed_frame() -> None:
    frame = DocumentList([]).to_dataframe()
    assert frame.empty and list(frame.columns) == list(DOCUMENT_COLUMNS)
    assert_dtypes(frame)
    assert len(DocumentList([])) == 0


def test_unreadable_values_do_not_break_the_frame() -> None:
    row = {"number": "F001-x", "date_of_issue": "ayer", "total": "n/a", "has_xml": None}
    frame = DocumentList([row]).to_dataframe()
    assert frame["date_of_issue"].isna().all() and frame["total"].tolist() == [0.0]
    assert frame["correlative"].isna().all() and frame["has_xml"].tolist() == [False]
    record = DocumentList([row])[0]
    assert record.date_of_issue is None and record.total == 0 and record.correlative is None


def test_list_from_the_service_to_a_dataframe(client: Client) -> None:
    day = peru_today()
    issued = [
        client.documents.issue(invoice_body()),
        client.documents.issue(
            Invoice(
                customer=Customer.ruc("20601030013", "EMPRESA XYZ S.A.C."),
                currency="USD",
                lines=[Line("Licencia", 1, unit_value=100, unit="ZZ")],
            )
        ),
        client.documents.issue(
            Receipt(customer=Customer.dni("46027862", "ANA"), lines=[Line("Menú", 1, unit_price=15)])
        ),
    ]
    documents = client.documents.list(day, day)
    assert len(documents) >= 3
    assert documents[-1] == documents[len(documents) - 1] and documents[:2] == [documents[0], documents[1]]
    frame = documents.to_dataframe()
    assert len(frame) == len(documents)
    assert_dtypes(frame)
    mine = frame[frame["external_id"].isin([r.external_id for r in issued])].set_index("number")
    assert mine.loc[issued[0].number, "total"] == 118.0
    assert mine.loc[issued[1].number, "currency_type_id"] == "USD"
    assert mine.loc[issued[2].number, "document_type_id"] == "03"
    assert (mine["date_of_issue"] == pd.Timestamp(day)).all()
    assert set(frame["state_type_id"].cat.categories) <= {"01", "03", "05", "07", "09", "11", "13"}
    record = next(r for r in documents if r.external_id == issued[1].external_id)
    assert record.total == Decimal("118.00") and record.total_igv == Decimal("18.00")
    assert record.series == "F001" and record.correlative == issued[1].correlative


def test_list_accepts_strings_and_rejects_nonsense(client: Client) -> None:
    day = peru_today().isoformat()
    assert isinstance(client.documents.list(day, day), DocumentList)
    with pytest.raises(ValueError):
        client.documents.list("yesterday", day)


def test_find_after_issuing(client: Client) -> None:
    result = client.documents.issue(invoice_body())
    found = client.documents.find("f001", result.correlative)
    assert found is not None and found.external_id == result.external_id
    assert (
        client.documents.find("F001", result.correlative, around=peru_today() - dt.timedelta(days=30)) is None
    )
    assert client.documents.find("F001", 99_999_999) is None


def test_find_reads_real_tenant_numbers(standin: StandIn) -> None:
    today = peru_today()
    path = f"/api/documents/lists/{today - dt.timedelta(days=7)}/{today + dt.timedelta(days=7)}"
    standin.on("GET", path, Answer(200, {"data": real_rows()}))
    with Client(standin.root, "real-token", cache=False) as client:
        found = client.documents.find("B001", 88)
        assert found is not None and found.id == 1524
        assert client.documents.find("B001", 89) is None


def synthetic_rows(count: int) -> list[dict]:
    rows = []
    for i in range(count):
        row = copy.deepcopy(REAL_TENANT_ROW)
        row.update(
            id=i,
            number=f"F00{i % 3 + 1}-{i}",
            date_of_issue=(dt.date(2026, 5, 1) + dt.timedelta(days=i % 90)).strftime("%d-%m-%Y"),
            total=f"{i % 5000}.{i % 100:02d}",
            customer_name=f"CLIENTE {i % 700}",
            state_type_id=("01", "05", "09", "11")[i % 4],
        )
        rows.append(row)
    return rows


def test_twenty_thousand_rows_to_a_dataframe_in_well_under_a_second() -> None:
    rows = synthetic_rows(20_000)
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        frame = DocumentList(rows).to_dataframe()
        best = min(best, time.process_time() - started)
    assert len(frame) == 20_000 and frame["date_of_issue"].notna().all()
    assert best < 1.0, f"{best:.2f} s of CPU for 20,000 rows"


@dataclass(frozen=True)
class _Note:
    id: int
    number: str
    date_of_issue: dt.date | None


@pytest.mark.parametrize(
    ("days", "says"),
    [
        ((6, 7), "ninguna se emitió entre el 01/11/2026 y el 05/11/2026"),  # both newer than the range
        ((3, 7), "se muestra 1 emitida entre el 01/11/2026 y el 05/11/2026"),
        ((3, 4), "se muestran las 2 emitidas entre el 01/11/2026 y el 05/11/2026"),
    ],
)
def test_a_range_that_may_lack_records_says_so_in_one_sentence(days: tuple[int, int], says: str) -> None:
    """A tenant that ignores dates and answers only its latest (a search: nothing is paged back)."""
    latest = [_Note(i, f"NV01-{9 - i}", dt.date(2026, 11, day)) for i, day in enumerate(days)]
    found = in_range(
        cast(Any, None),
        latest,
        lambda _: [],
        dt.date(2026, 11, 1),
        dt.date(2026, 11, 5),
        searched=True,
        what="notas de venta",
    )
    assert not found.complete
    assert found.note == (
        f"La empresa no filtra por fecha: de sus últimas 2 notas de venta, {says}, y puede haber más de "
        "esas fechas."
    )
