"""The connector's sale-note list (``client.sale_notes.list`` / ``frame``), the conversion of a listed
quotation into a sale note, and the documents' sale note (``DocumentRecord.sale_note`` and the frame's
``sale_note_number``), against the live service and against rows as real tenants send them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal

import pytest

from connector import Client, ConflictError
from connector.models import DocumentList
from connector.quotations import Quotation, QuotationRecord, QuotationsResource
from connector.sale_notes import SaleNote, SaleNoteRecord
from connector.sheets import NoteLine
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.connector.test_lists import real_rows
from tests.shops import Shop, new_shop


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "connector-notes")


@pytest.fixture
def client(shop: Shop) -> Iterator[Client]:
    with shop.client() as c:
        yield c


def test_sale_notes_listed_with_their_documents_and_quotations(client: Client) -> None:
    product = client.items.create(code="CNL-1", description="Mochila", sale_price="59.00", stock=20)
    customer = client.persons.create(
        number="20100070970", name="SUPERMERCADOS PERUANOS S.A.", identity_type="6"
    )
    [series] = client.sale_notes.series()
    yesterday = peru_today() - dt.timedelta(days=1)
    first = client.sale_notes.issue(
        SaleNote(
            series_id=series.id,
            customer_id=customer.id,
            lines=[NoteLine(1, unit_price=59, item_id=product.id)],
            issue_date=yesterday,
        )
    )
    quotation = client.quotations.create(
        Quotation(customer_id=customer.id, lines=[NoteLine(2, unit_price="59.00", item_id=product.id)])
    )
    [record] = client.quotations.list(quotation.number, fresh=True)
    assert isinstance(record, QuotationRecord) and not record.converted and record.sale_note == ""
    assert record.customer_id == customer.id and record.lines[0]["internal_id"] == "CNL-1"

    sheet = client.quotations.to_sale_note(record, series_id=series.id)
    assert sheet.totals().total == Decimal("118.00")
    second = client.sale_notes.issue(sheet)
    factura = client.sale_notes.generate_cpe(second.id, document_type="01")
    [record] = client.quotations.list(quotation.number)  # the cache was invalidated by the issue
    assert record.converted and record.sale_note == second.number
    with pytest.raises(ConflictError):
        client.sale_notes.issue(sheet)

    notes = client.sale_notes.list()
    assert [n.number for n in notes[:2]] == [second.number, first.number]
    converted, still_open = notes[0], notes[1]
    assert isinstance(converted, SaleNoteRecord)
    assert converted.converted and converted.document == factura.number
    assert converted.document_external_id == factura.external_id and converted.document_type_id == "01"
    assert converted.quotation == quotation.number and converted.total == Decimal("118.00")
    assert not still_open.converted and still_open.document == "" and still_open.date_of_issue == yesterday
    ranged = client.sale_notes.list(start=yesterday, end=yesterday, details=True)
    assert [n.id for n in ranged] == [first.id] and ranged[0].lines[0]["internal_id"] == "CNL-1"

    frame = client.sale_notes.list(start=yesterday, end=peru_today(), fresh=True).to_dataframe()
    assert frame["number"].tolist()[:2] == [second.number, first.number]
    assert frame["document"].tolist()[:2] == [factura.number, ""]
    assert isinstance(frame["total"].iloc[0], Decimal)
    with pytest.raises(ValueError):
        client.sale_notes.list(start=yesterday)

    documents = client.documents.list(peru_today(), peru_today(), fresh=True)
    made = next(d for d in documents if d.external_id == factura.external_id)
    assert made.sale_note == second.number
    table = documents.to_dataframe()
    assert table.loc[table["external_id"] == factura.external_id, "sale_note_number"].tolist() == [
        second.number
    ]


def test_rows_of_real_tenants_without_or_with_their_own_sale_note_keys() -> None:
    rows = real_rows()
    rows[1] = {**rows[1], "sales_note": [{"id": 4, "number_full": "NV01-4", "customer_name": "X"}]}
    first, second = DocumentList(rows)
    assert first.sale_note == "" and second.sale_note == "NV01-4"
    frame = DocumentList(rows).to_dataframe()
    assert frame["sale_note_number"].isna().tolist() == [True, False]
    assert frame["sale_note_number"].tolist()[1] == "NV01-4"
    odd = [{**rows[0], "sales_note": value} for value in (None, "NV01-1", [], [None], {"a": 1})]
    assert [record.sale_note for record in DocumentList(odd)] == [""] * 5

    # a real tenant's sale-note row (SaleNoteCollection): number_format amounts, no customer id nor lines
    real = {
        "id": 25,
        "external_id": "6c1f0f0c-0000-4000-8000-000000000025",
        "date_of_issue": "2026-07-21",
        "full_number": "NV01-25",
        "customer_name": "ANA TORRES",
        "customer_number": "45678912",
        "currency_type_id": "PEN",
        "total_taxed": "1,000.00",
        "total_igv": "180.00",
        "total": "1,180.00",
        "documents": [{"id": 9, "number_full": "B001-9"}],
        "quotation_number_full": "",
    }
    record = SaleNoteRecord.from_row(real)
    assert record.number == "NV01-25" and record.total == Decimal("1180.00") and record.customer_id is None
    assert record.document == "B001-9" and record.converted and record.lines == ()
    quotation = QuotationRecord.from_row(
        {"id": 8, "identifier": "COT-8", "total": "59.00", "documents": [], "sale_notes": [], "changed": True}
    )
    assert quotation.converted and quotation.customer_id is None
    with pytest.raises(ValueError):
        QuotationsResource.to_sale_note(quotation, series_id=1)
