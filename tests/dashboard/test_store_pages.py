"""The pages that read from the local store (``store = true`` in the tenants file) show what they show
when they ask the tenant for every range: the same tests, run over the store, and the store holds the
documents afterwards. Then a change made on the Documentos page is seen through the store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from connector import Client
from connector.builders import Customer, Invoice, Line
from connector.store import LocalStore, store_path
from tests.conftest import LiveService
from tests.dashboard import test_app, test_pages
from tests.dashboard.conftest import History, Issued
from tests.samples.tenants import ACME, ACME_TOKEN


def _stored_ids(live: LiveService) -> set[str]:
    """The external ids in acme's store, read through the store the pages opened (the process's own: a
    second connection to the file would clash with it)."""
    from dashboard import session

    store = session._store_of(f"{ACME}@{live.base_url(ACME)}", live.base_url(ACME))
    return set(store.sql("SELECT external_id FROM documents")["external_id"])


def _has_file(live: LiveService) -> bool:
    return store_path(live.base_url(ACME), os.environ["FACTURADOR_STORE_DIR"]).is_file()


def test_documents_page_from_the_store(stored_tenants: Path, live: LiveService, issued: Issued) -> None:
    test_app.test_documents_page_lists_the_range_with_kpis_and_charts(stored_tenants, issued)
    assert _has_file(live)
    ids = _stored_ids(live)
    assert {r.external_id for r in (*issued.invoices, issued.receipt, issued.unsent)} <= ids


def test_documents_page_filters_from_the_store(stored_tenants: Path, issued: Issued) -> None:
    test_app.test_documents_page_filters_and_range(stored_tenants, issued)


def test_home_from_the_store(stored_tenants: Path, issued: Issued, history: History) -> None:
    test_pages.test_home_is_the_first_page_and_shows_the_alerts(stored_tenants, issued, history)


def test_periods_from_the_store(stored_tenants: Path, issued: Issued, history: History) -> None:
    test_pages.test_periods_page_totals_comparison_and_charts(stored_tenants, issued, history)


def test_register_from_the_store(
    stored_tenants: Path, live: LiveService, issued: Issued, history: History
) -> None:
    test_pages.test_register_page_builds_the_month(stored_tenants, issued, history)
    assert issued.invoices[0].external_id in _stored_ids(live)


def test_receivables_from_the_store(stored_tenants: Path, live: LiveService, history: History) -> None:
    test_pages.test_receivables_page_ages_the_instalments(stored_tenants, history)
    assert history.credit.external_id in _stored_ids(live)


@pytest.fixture
def unsent(live: LiveService) -> str:
    with Client(live.base_url(ACME), ACME_TOKEN, cache=False) as client:
        invoice = Invoice(
            customer=Customer.ruc("20601030013", "CLIENTE DEL ALMACEN S.A.C."),
            lines=[Line("Servicio", 1, unit_value=100)],
            send=False,
        )
        return client.documents.issue(invoice).number


def test_a_document_sent_from_the_page_is_seen_through_the_store(stored_tenants: Path, unsent: str) -> None:
    at = test_app.app()
    table = at.dataframe[0].value
    position = list(table["number"]).index(unsent)
    assert table.iloc[position]["state"] == ["Registrado"]
    at.session_state["docs_table"] = {"selection": {"rows": [position], "columns": [], "cells": []}}
    at.run()
    at.button(key="send").click().run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert table[table["number"] == unsent].iloc[0]["state"] == ["Aceptado"]


def test_the_store_is_off_when_the_file_says_so(tenants: Path, live: LiveService, issued: Issued) -> None:
    """``cache = false`` (the other tests' file) reads every range from the tenant: no store file."""
    test_app.test_documents_page_lists_the_range_with_kpis_and_charts(tenants, issued)
    assert not _has_file(live)
    assert LocalStore  # the module is importable without a store in use
