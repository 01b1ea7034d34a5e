"""Nothing is left unsent: facturas left registered by an outage or a crash are sent later.

Over real HTTP and the real CLI: ``facturador send-pending`` (cron) and the background sender of
``facturador serve``, including a worker killed with SIGKILL right after committing a document (the
test-only failpoint ``FACTURADOR_TEST_KILL_AFTER_COMMIT``), and a client retrying with its idempotency key.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from connector import Client
from facturador.domain.failpoints import KILL_AFTER_COMMIT_ENV
from facturador.domain.send_policy import MAX_RETRY_SECONDS, retry_delay
from tests.conftest import LiveService
from tests.samples.bodies import boleta_body, credit_note_body, invoice_body
from tests.served import serve
from tests.shops import Shop, new_shop


def send_pending(live: LiveService, *options: str) -> str:
    """Run ``facturador send-pending OPTIONS`` on the live service's storage; its output."""
    done = subprocess.run(
        [sys.executable, "-m", "facturador.cli", "send-pending", *options],
        env={**os.environ, **live.settings.export()},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _rows(shop: Shop) -> dict[str, dict[str, Any]]:
    day = invoice_body()["fecha_de_emision"]
    with httpx.Client(base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}) as client:
        rows = client.get(f"/api/documents/lists/{day}/{day}").json()["data"]
    return {row["number"]: row for row in rows}


def _issue(shop: Shop, body: dict[str, Any], key: str | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {shop.token}", **({"Idempotency-Key": key} if key else {})}
    return httpx.post(f"{shop.base_url}/api/documents", json=body, headers=headers, timeout=60)


def test_retry_waits_double_up_to_the_cap() -> None:
    settings = {"send_retry_seconds": 60.0}
    waits = [retry_delay(n, settings).total_seconds() for n in range(1, 9)]
    assert waits == [60, 120, 240, 480, 960, 1800, 1800, 1800]
    assert retry_delay(3, {"send_retry_seconds": 0.0}) == dt.timedelta(0)
    assert retry_delay(2, {"send_retry_seconds": 3600.0}).total_seconds() == 3600 > MAX_RETRY_SECONDS
    assert retry_delay(10_000, settings).total_seconds() == MAX_RETRY_SECONDS


@pytest.mark.slow(seconds=28)
def test_an_outage_leaves_facturas_pending_and_send_pending_sends_them(live: LiveService) -> None:
    shop = new_shop(live, "outage", authority_outage=True)
    factura = _issue(shop, invoice_body(), key="venta-outage-1").json()
    assert factura["data"]["state_type_id"] == "01"
    assert factura["response"]["code"] == "0109" and factura["links"]["cdr"] == ""
    note = _issue(shop, credit_note_body(factura["data"]["external_id"])).json()
    assert note["data"]["state_type_id"] == "01"
    boleta = _issue(shop, boleta_body()).json()  # boletas go in daily summaries: never pending
    unsent = _issue(shop, invoice_body(acciones={"enviar_xml_firmado": False})).json()  # the client's
    listed = send_pending(live, "--tenant", shop.slug, "--dry-run")
    assert (
        f"{factura['data']['number']} ({shop.slug}): 1 attempt(s), last answer 0109, next attempt" in listed
    )
    assert "2 pending, 0 due now (dry run: nothing sent)." in listed
    # still down: a forced pass is one more attempt each, and the wait before the next one doubles
    assert "still pending: 0109" in send_pending(live, "--tenant", shop.slug, "--force")
    shop.set(authority_outage=False)
    assert "0 sent" in send_pending(live, "--tenant", shop.slug)  # not due yet (60 s, then 120 s)
    output = send_pending(live, "--tenant", shop.slug, "--force")
    assert f"{factura['data']['number']} ({shop.slug}): 05 Aceptado" in output
    assert f"{note['data']['number']} ({shop.slug}): 05 Aceptado" in output
    assert "2 sent: 2 answered with a state, 0 still pending." in output
    rows = _rows(shop)
    for sent in (factura, note):
        row = rows[sent["data"]["number"]]
        assert row["state_type_id"] == "05" and row["has_cdr"] is True
    assert rows[boleta["data"]["number"]]["state_type_id"] == "01"
    assert rows[unsent["data"]["number"]]["state_type_id"] == "01"
    assert "0 pending" in send_pending(live, "--tenant", shop.slug, "--dry-run")
    # the client that never got its answer retries: the same document, now accepted, with its CDR
    again = _issue(shop, invoice_body(), key="venta-outage-1")
    assert again.json()["was_duplicate"] is True
    assert again.json()["data"]["external_id"] == factura["data"]["external_id"]
    assert again.json()["data"]["state_type_id"] == "05" and again.json()["links"]["cdr"]
    cdr = httpx.get(again.json()["links"]["cdr"])
    assert cdr.status_code == 200 and cdr.content[:2] == b"PK"


def test_documents_of_a_tenant_without_automatic_sending_are_not_pending(live: LiveService) -> None:
    shop = new_shop(live, "manual", send_auto=False, send_retry_seconds=0.0)
    issued = _issue(shop, invoice_body()).json()
    assert issued["data"]["state_type_id"] == "01" and issued["response"] == []
    output = send_pending(live, "--tenant", shop.slug, "--force")
    assert "0 sent" in output
    assert _rows(shop)[issued["data"]["number"]]["state_type_id"] == "01"


def test_a_state_set_by_hand_settles_a_pending_document(live: LiveService) -> None:
    shop = new_shop(live, "byhand", authority_outage=True, send_retry_seconds=0.0)
    issued = _issue(shop, invoice_body()).json()
    with shop.client() as client:
        client.documents.update_status(issued["data"]["external_id"], "05")
    assert "0 pending" in send_pending(live, "--tenant", shop.slug, "--dry-run")


def test_send_pending_names_an_unknown_tenant(live: LiveService) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "facturador.cli", "send-pending", "--tenant", "nobody-here"],
        env={**os.environ, **live.settings.export()},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "no tenant named 'nobody-here'" in done.stderr


def _wait_for(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.3)


@pytest.mark.slow(seconds=27)
@pytest.mark.parametrize("sender", ["serve", "cli"])
def test_a_worker_killed_after_the_commit_leaves_nothing_unsent(
    live: LiveService, tmp_path: Path, sender: str
) -> None:
    """SIGKILL right after the commit: the client gets no answer, the document is registered (01) and
    not sent; the background sender of ``serve`` (or ``send-pending``) sends it, and the client's retry
    with its key gets that same document."""
    shop = new_shop(live, f"crash-{sender}", send_retry_seconds=0.5)
    trigger = tmp_path / "kill-next-issue"
    every = "0.5" if sender == "serve" else "0"
    env = {KILL_AFTER_COMMIT_ENV: str(trigger)}
    log = tmp_path / "serve.log"
    with serve(
        live.settings, log, "--workers", "2", "--send-pending-every", every, "--log-level", "info", env=env
    ) as served:
        with served.client(shop.slug, shop.token) as client:
            assert client.post("/api/documents", json=invoice_body()).json()["data"]["number"] == "F001-1"
            trigger.touch()
            key = f"venta-{uuid.uuid4()}"
            with pytest.raises(httpx.TransportError):  # the worker died before answering
                client.post("/api/documents", json=invoice_body(), headers={"Idempotency-Key": key})
            assert not trigger.exists()
            if sender == "cli":
                row = _rows(shop)["F001-2"]
                assert row["state_type_id"] == "01" and row["has_cdr"] is False
                time.sleep(0.6)
                output = send_pending(live, "--tenant", shop.slug)
                assert f"F001-2 ({shop.slug}): 05 Aceptado" in output
            _wait_for(lambda: _rows(shop)["F001-2"]["has_cdr"], 30, "the pending sender")
            retry = client.post("/api/documents", json=invoice_body(), headers={"Idempotency-Key": key})
            assert retry.status_code == 200, retry.text
            assert retry.json()["was_duplicate"] is True
            assert retry.json()["data"]["number"] == "F001-2"
            assert retry.json()["data"]["state_type_id"] == "05"
    rows = _rows(shop)
    assert sorted(rows) == ["F001-1", "F001-2"]
    assert rows["F001-2"]["state_type_id"] == "05"
    assert "died" in served.output()  # uvicorn saw its worker killed (and started another)
    if sender == "serve":
        assert served.output().count(f"sent F001-2 ({shop.slug}): 05 Aceptado") == 1  # one sender
    with Client(shop.base_url, shop.token, cache=False) as client:
        pending = [d for d in client.documents.latest(fresh=True) if d.is_unsent]
    assert pending == []
