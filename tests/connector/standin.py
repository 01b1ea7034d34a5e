"""A tiny HTTP server on loopback that answers what a test scripts, for shapes our service never sends:
real tenants' HTTP 500 and HTTP 200 ``success: false`` envelopes, Laravel 422 bodies, d-m-Y lists, 503s
to retry, slow answers. Our own service is always tested for real through the ``live`` fixture."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Answer:
    status: int = 200
    body: Any = None  # dict/list -> JSON, str/bytes -> as is
    delay: float = 0.0
    content_type: str = "application/json"


@dataclass
class StandIn:
    """Scripted answers per ``(method, path)``: a list consumed in order, the last one repeated."""

    root: str = ""
    answers: dict[tuple[str, str], list[Answer]] = field(default_factory=dict)
    hits: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)

    def on(self, method: str, path: str, *answers: Answer) -> None:
        self.answers[(method, path)] = list(answers)

    def count(self, method: str, path: str) -> int:
        return sum(1 for m, p, _, _ in self.hits if (m, p) == (method, path))

    def next_answer(self, method: str, path: str) -> Answer:
        queue = self.answers.get((method, path))
        if not queue:
            return Answer(404, {"success": False, "message": "No se encontró la URL especificada"})
        return queue.pop(0) if len(queue) > 1 else queue[0]


def _handler(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _answer(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            standin.hits.append((method, self.path, dict(self.headers), body))
            answer = standin.next_answer(method, self.path)
            if answer.delay:
                time.sleep(answer.delay)
            if isinstance(answer.body, dict | list):
                payload = json.dumps(answer.body).encode()
            elif isinstance(answer.body, str):
                payload = answer.body.encode()
            else:
                payload = answer.body or b""
            try:
                self.send_response(answer.status)
                self.send_header("Content-Type", answer.content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                pass

        def do_GET(self) -> None:
            self._answer("GET")

        def do_POST(self) -> None:
            self._answer("POST")

    return Handler


@pytest.fixture
def standin() -> Iterator[StandIn]:
    """A scripted stand-in of a real tenant on a free loopback port."""
    state = StandIn()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.root = f"http://127.0.0.1:{server.server_address[1]}"
    # shutdown() waits for the loop to look again: 0.05 s, not serve_forever's 0.5 s, after each test
    thread = threading.Thread(target=lambda: server.serve_forever(poll_interval=0.05), daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()
