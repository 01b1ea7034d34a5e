"""The old names of the connector still work, each use warning (DeprecationWarning) with the new one:
the modules that moved to ``analysis`` and the back-office families' own modules, and the methods
renamed so every family says the same things the same way. The methods run on a MockTransport: what is
tested is the connector's own forwarding, not the service."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
import requests

import analysis.alerts
import analysis.receivables
import analysis.register
import analysis.sales
from connector import Client
from connector.lists import RecordList
from connector.persons import Person
from connector.transports import Answer, MockTransport

PERSON = {"id": 7, "number": "45678912", "name": "ANA TORRES", "identity_document_type_id": "1"}
PRODUCT = {"id": 5, "internal_id": "P-1", "description": "Cuaderno", "sale_unit_price": "5.90", "stock": "3"}
MOVE = {"id": 1, "type": "input", "quantity": "3", "balance": "3", "description": "Compra"}
ANSWERS = {
    "/api/sale-note/series": Answer(200, json=[]),
    "/api/person": Answer(200, json={"success": True, "data": PERSON}),
    "/api/persons/customers/records?page=1": Answer(200, json={"data": [PERSON], "meta": {"last_page": 1}}),
    "/api/document/search-items?input=&limit=100&page=1": Answer(200, json={"data": {"items": [PRODUCT]}}),
    "/api/document/search-items?input=&limit=100": Answer(200, json={"data": {"items": [PRODUCT]}}),
    "/api/items/5/kardex?page=1": Answer(200, json={"data": [MOVE], "meta": {"last_page": 1}}),
    "/api/sale-note/lists": Answer(200, json={"data": []}),
    "/api/quotations/list": Answer(200, json={"data": []}),
    "/downloads/dispatch/xml/g-1": Answer(200, content=b"<Guide/>"),
    "/downloads/retention/pdf/r-1": Answer(200, content=b"%PDF-1.4"),
}


def tenant(request: requests.PreparedRequest) -> Answer:
    path = str(request.path_url)
    if path.startswith("/api/documents/lists/"):
        return Answer(200, json={"data": []})
    return ANSWERS.get(path, Answer(404, json={"message": f"no {path}"}))


@pytest.fixture
def client() -> Client:
    return Client("https://empresa.example.pe", "token", transport=MockTransport(tenant))


def warns(new: str) -> Any:
    """Expect one DeprecationWarning that names ``new``."""
    return pytest.warns(DeprecationWarning, match=re.escape(new))


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("connector.sales", analysis.sales, "summarize"),
        ("connector.register", analysis.register, "SalesRegister"),
        ("connector.receivables", analysis.receivables, "open_instalments"),
        ("connector.alerts", analysis.alerts, "alerts"),
    ],
)
def test_the_analysts_modules_answer_from_analysis(old: str, new: Any, name: str) -> None:
    module = importlib.import_module(old)
    with warns(f"{new.__name__}.{name}"):
        assert getattr(module, name) is getattr(new, name)


def test_the_back_office_module_answers_from_each_familys_module() -> None:
    backoffice = importlib.import_module("connector.backoffice")
    with warns("connector.persons.Person"):
        assert backoffice.Person is Person
    with warns("connector.lists.RecordList"):
        assert backoffice.Listing is RecordList
    with pytest.raises(AttributeError):
        backoffice.Nothing  # noqa: B018


def test_persons_save_records_and_frame(client: Client) -> None:
    with warns("client.persons.create(...)"):
        saved = client.persons.save(number="45678912", name="ANA TORRES", identity_type="1")
    assert saved == client.persons.create(number="45678912", name="ANA TORRES", identity_type="1")
    with warns("client.persons.update(person_id, ...)"):
        edited = client.persons.save(number="45678912", name="ANA TORRES", identity_type="1", person_id=7)
    assert edited.id == 7
    with warns("client.persons.list(...)"):
        assert client.persons.records() == client.persons.list()
    with warns("client.persons.list(...).to_dataframe()"):
        assert client.persons.frame()["name"].tolist() == ["ANA TORRES"]


def test_items_every_and_frame(client: Client) -> None:
    with warns("client.items.list(...)"):
        products, complete = client.items.every()
    assert complete and products == list(client.items.list())
    with warns("client.items.search(...).to_dataframe()"):
        assert client.items.frame()["code"].tolist() == ["P-1"]


def test_kardex_and_sheet_frames(client: Client) -> None:
    with warns("client.inventory.kardex(item_id).to_dataframe()"):
        assert client.inventory.kardex_frame(5)["balance"].tolist() == [3]
    with warns("client.sale_notes.list(...).to_dataframe()"):
        assert client.sale_notes.frame().empty
    with warns("client.quotations.list(...).to_dataframe()"):
        assert client.quotations.frame().empty


def test_downloads_by_kind(client: Client) -> None:
    with warns("download_xml(external_id)"):
        assert client.dispatches.download("g-1", "xml") == client.dispatches.download_xml("g-1")
    with warns("download_xml(external_id)"):
        assert client.retentions.download("pdf", "r-1") == client.retentions.download_pdf("r-1")


def test_documents_sales_register(client: Client) -> None:
    with warns("analysis.register.sales_register(client, ...)"):
        register = client.documents.sales_register("2026-11", ruc="20601030013", name="EMPRESA S.A.C.")
    assert register.ple_rows() == [] and register.ruc == "20601030013"


def test_the_warning_points_at_the_callers_line(client: Client) -> None:
    with pytest.warns(DeprecationWarning) as caught:
        client.persons.records()
    assert caught[0].filename == __file__
