"""What many test modules share: issuing over HTTP, waiting out a SUNAT ticket, and a recording plugin.

- :func:`issue` posts a body and asserts the service took it (HTTP 200, ``success``), and with
  ``accepted=True`` that SUNAT accepted it (code 0);
- :func:`wait_for` polls a ticket's status endpoint until it stops answering 202 (in process), moving
  the live service's clock (``tests/conftest.py``'s :class:`~tests.conftest.Clock`) on instead of
  sleeping through ``authority_ticket_delay``;
- :class:`Recorder` is a connector plugin that records every hook call and can refuse one family.

The tenants of their own that tests work on are :class:`tests.shops.Shop`.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from connector import FieldError, hookimpl
from tests.conftest import CLOCK

if TYPE_CHECKING:
    import httpx

#: Seconds the live service's clock moves on each time a ticket answers "in process".
TICKET_STEP = 1.0


def issue(
    client: httpx.Client, body: dict[str, Any], path: str = "/api/documents", *, accepted: bool = False
) -> dict[str, Any]:
    """POST ``body`` to ``path`` of ``client``'s tenant; assert HTTP 200 with ``success`` true, and with
    ``accepted`` that SUNAT's answer is code 0. Returns the whole answer (``data``, ``links``,
    ``response``)."""
    response = client.post(path, json=body)
    assert response.status_code == 200, response.text
    payload: dict[str, Any] = response.json()
    assert payload["success"] is True, payload
    if accepted:
        assert payload["response"]["code"] == "0", payload["response"]
    return payload


def wait_for(client: httpx.Client, path: str, body: dict[str, Any], *, seconds: float = 30) -> httpx.Response:
    """Poll a status endpoint until it stops answering 202 (in process); each 202 must say so
    (``TICKET_IN_PROCESS``) and moves the live service's clock :data:`TICKET_STEP` seconds on, so a
    ticket's ``authority_ticket_delay`` passes without waiting it out (a ``facturador serve`` child keeps
    real time: there the poll sleeps). Fails after ``seconds`` of real time."""
    deadline = time.monotonic() + seconds
    while True:
        response = client.post(path, json=body)
        if response.status_code != 202:
            return response
        assert response.json()["error_code"] == "TICKET_IN_PROCESS"
        assert time.monotonic() < deadline, "the ticket stayed in process"
        CLOCK.advance(TICKET_STEP)
        time.sleep(0.05)


def poll(ask: Callable[[], httpx.Response], *, seconds: float = 15, every: float = 0.3) -> httpx.Response:
    """Call ``ask`` until it answers anything but 202 or ``seconds`` pass; the clock moves on as in
    :func:`wait_for` (the last answer is returned, 202 included, for the caller to assert on)."""
    deadline = time.monotonic() + seconds
    while True:
        response = ask()
        if response.status_code != 202 or time.monotonic() > deadline:
            return response
        CLOCK.advance(TICKET_STEP)
        time.sleep(min(every, 0.05))


class Recorder:
    """A connector plugin recording every hook call as ``(hook, family, payload or result)``.

    ``block`` names a family whose payloads it refuses (a :class:`FieldError` on ``field``); ``prepare``
    changes the payloads it is given (returns the new payload, or None to leave it); ``fields`` adds a
    text form field ``recorder.<family>`` to each family it names; ``name`` is appended to the
    payload's ``order`` list when ``prepare`` is ``Recorder.ordered`` (tells recorders apart).
    """

    def __init__(
        self,
        block: str | None = None,
        *,
        field: str = "documentos",
        prepare: Callable[[Recorder, str, dict[str, Any]], dict[str, Any] | None] | None = None,
        fields: Iterable[str] = (),
        name: str = "",
    ) -> None:
        self.calls: list[tuple[str, str, Any]] = []
        self.block = block
        self.field = field
        self.prepare = prepare
        self.fields = tuple(fields)
        self.name = name

    @hookimpl
    def facturador_prepare_payload(self, family: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        self.calls.append(("prepare", family, copy.deepcopy(payload)))
        return None if self.prepare is None else self.prepare(self, family, payload)

    @hookimpl
    def facturador_validate_payload(self, family: str, payload: dict[str, Any]) -> list[FieldError]:
        self.calls.append(("validate", family, payload))
        return [FieldError(self.field, "Bloqueado por el plugin.")] if family == self.block else []

    @hookimpl
    def facturador_issued(self, family: str, payload: dict[str, Any], result: object) -> None:
        self.calls.append(("issued", family, result))

    @hookimpl
    def facturador_form_fields(self, family: str) -> list[Any]:
        from connector.forms import FormField

        return [FormField(f"recorder.{family}", "Nota", "text")] if family in self.fields else []

    def of(self, family: str) -> list[str]:
        """The hooks called for ``family``, in order."""
        return [hook for hook, called, _ in self.calls if called == family]

    def result(self, family: str) -> object:
        """What ``facturador_issued`` was given for ``family`` first."""
        return next(result for hook, called, result in self.calls if hook == "issued" and called == family)

    def ordered(self, family: str, payload: dict[str, Any]) -> dict[str, Any]:
        """A ``prepare`` that appends this recorder's ``name`` to the payload's ``order``."""
        return {**payload, "order": [*payload.get("order", []), self.name]}
