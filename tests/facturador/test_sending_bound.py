"""What bounds one sending, measured on the wire: a SUNAT that answers each call's tries with a slow 503 and
then no answer at all makes the issuing request try sendBill ``sunat_retries + 1`` times, then ask
getStatusCdr as many times; from the first byte sent to the last try's time-out it takes about
:func:`sending_seconds` (two calls' tries and pauses), more than one call's ``timeout × tries`` (which
docs/deploying.md said before), never more than the bound."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from facturador.config import Settings
from facturador.domain.send_policy import sending_seconds
from tests.conftest import free_port
from tests.nodes import new_tenant, start, wait_until_up
from tests.samples.bodies import invoice_body

TIMEOUT = 1.0
RETRIES = 1


class _Slow:
    """A SUNAT whose every call's tries but the last answer 503 just before the time-out, and whose last
    try never answers; it notes when each request arrived, by operation."""

    def __init__(self) -> None:
        self.arrivals: list[tuple[str, float]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                operation = self.headers.get("SOAPAction", "").strip('"').removeprefix("urn:")
                with outer.lock:
                    outer.arrivals.append((operation, time.monotonic()))
                    seen = sum(1 for name, _ in outer.arrivals if name == operation)
                if seen <= RETRIES:
                    time.sleep(TIMEOUT * 0.8)
                    self.send_response(503)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    time.sleep(TIMEOUT * 4)  # past the client's time-out: no answer read

            def log_message(self, *_args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def slow_sunat() -> Iterator[_Slow]:
    sunat = _Slow()
    thread = threading.Thread(target=sunat.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield sunat
    finally:
        sunat.server.shutdown()
        sunat.server.server_close()


@pytest.mark.slow(seconds=25)
def test_one_sending_takes_two_calls_tries_at_most(tmp_path, slow_sunat: _Slow) -> None:  # type: ignore[no-untyped-def]
    settings = Settings.resolve(tmp_path / "data")
    tenant = new_tenant(
        settings, "tope", sunat_url=slow_sunat.url, sunat_timeout=TIMEOUT, sunat_retries=RETRIES
    )
    policy = {"sunat_sending": "production", "sunat_timeout": TIMEOUT, "sunat_retries": RETRIES}
    bound = sending_seconds(policy)
    assert bound == 2 * (TIMEOUT * (RETRIES + 1) + 0.5)
    node = start(settings, tmp_path / "node.log", "serve", "--send-pending-every", "0", port=free_port())
    try:
        wait_until_up(node)
        began = time.monotonic()
        issued = httpx.post(
            f"{node.root}/t/{tenant.slug}/api/documents",
            json=invoice_body(),
            headers={"Authorization": f"Bearer {tenant.token}", "Idempotency-Key": "tope-1"},
            timeout=60,
        )
        took = time.monotonic() - began
    finally:
        node.stop()
    assert issued.status_code == 200, issued.text
    assert issued.json()["data"]["state_type_id"] == "01"  # owed: the pending sender sends it again
    operations = [name for name, _ in slow_sunat.arrivals]
    assert operations == ["sendBill"] * (RETRIES + 1) + ["getStatusCdr"] * (RETRIES + 1)
    sending = slow_sunat.arrivals[-1][1] + TIMEOUT - slow_sunat.arrivals[0][1]  # the last try's time-out
    one_call = TIMEOUT * (RETRIES + 1) + 0.5
    assert one_call < sending <= bound + 0.3, (sending, bound)
    assert took < bound + 10, took  # the rest of the request (signing, storing) is short
