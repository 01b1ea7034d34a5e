"""Documentos sends and resends a document by e-mail (AppTest, real HTTP on loopback to the live service,
a real SMTP server the test starts), showing the last delivery's state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import LiveService, free_port
from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_app import app, texts
from tests.facturador.api.test_email import CUSTOMER, REFUSED, Inbox, issue, smtp_shop, start_smtp, work
from tests.samples.bodies import invoice_body
from tests.shops import Shop, new_shop


@pytest.fixture
def smtp_inbox() -> Iterator[tuple[Inbox, int]]:
    """A real SMTP server on loopback keeping what arrives (as tests/facturador/api/test_email.py's)."""
    box, port = Inbox(), free_port()
    controller = start_smtp(box, port)
    try:
        yield box, port
    finally:
        controller.stop()


def dashboard_of(shop: Shop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the dashboard at ``shop`` on the live service (as the ``tenants`` fixture does for acme)."""
    monkeypatch.setenv(
        "FACTURADOR_TENANTS", str(write_tenants(tmp_path / "t.toml", shop.base_url, shop.token))
    )
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))


def _select(at, number: str) -> None:  # type: ignore[no-untyped-def]
    table = at.dataframe[0].value
    position = list(table["number"]).index(number)
    at.session_state["docs_table"] = {"selection": {"rows": [position], "columns": [], "cells": []}}
    at.run()
    assert not at.exception, at.exception


def test_documents_page_sends_and_resends_by_email(
    tmp_path: Path, live: LiveService, monkeypatch: pytest.MonkeyPatch, smtp_inbox: tuple[Inbox, int]
) -> None:
    box, port = smtp_inbox
    shop = smtp_shop(live, port)
    with shop.http() as client:
        answer = client.post("/api/documents", json=invoice_body())
        assert answer.status_code == 200, answer.text
        data = answer.json()["data"]
    monkeypatch.setenv(
        "FACTURADOR_TENANTS", str(write_tenants(tmp_path / "t.toml", shop.base_url, shop.token))
    )
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))
    at = app()
    assert not at.exception, at.exception
    _select(at, data["number"])
    assert at.button(key="email_send").label == "Enviar por correo"  # never e-mailed
    field = f"email_to_{data['external_id']}"
    at.text_input(key=field).set_value(CUSTOMER).run()
    at.button(key="email_send").click().run()
    assert not at.exception, at.exception
    assert f"{data['number']}: correo a {CUSTOMER} en cola de envío" in texts(at.success)
    work(live)  # the background worker sends it
    _select(at, data["number"])
    assert f"Último correo a {CUSTOMER}: enviado" in texts(at.success)
    assert at.button(key="email_send").label == "Reenviar por correo"
    assert at.text_input(key=field).value == CUSTOMER
    _, recipients, message = box.parsed()
    assert recipients == [CUSTOMER] and data["number"] in message["Subject"]
    # resent to an address the server refuses: shown as not sent, with the server's answer
    at.text_input(key=field).set_value(REFUSED).run()
    at.button(key="email_send").click().run()
    work(live)
    _select(at, data["number"])
    shown = texts(at.error)
    assert f"Último correo a {REFUSED}: no enviado" in shown and "550" in shown
    assert len(box.messages) == 1


def test_documents_page_says_why_without_smtp(
    tmp_path: Path, live: LiveService, monkeypatch: pytest.MonkeyPatch
) -> None:
    shop = new_shop(live, "nosmtp-page")
    with shop.http() as client:
        data = issue(client, correo_electronico=CUSTOMER)["data"]
    monkeypatch.setenv(
        "FACTURADOR_TENANTS", str(write_tenants(tmp_path / "t.toml", shop.base_url, shop.token))
    )
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))
    at = app()
    _select(at, data["number"])
    assert "no enviado" in texts(at.error) and "SMTP" in texts(at.error)  # enviar_email on issue, recorded
    at.button(key="email_send").click().run()
    assert not at.exception, at.exception
    assert "No se pudo enviar" in texts(at.error) and "servidor de correo" in texts(at.error)
