"""Real tenants' rate limit (60 requests a minute, answered over the limit as an HTTP 500 that was not
processed): the connector paces itself under it, sends a refused request again after the window (issuing
too: nothing was saved), gives up with a clear error when the tenant keeps refusing, and reports any
other 500 on issuing as an outcome to check. Windows of a second keep the tests short."""

from __future__ import annotations

import time

import httpx
import pytest

from connector import Client, ServerError
from connector.errors import OutcomeUnknownError, RateLimitError
from sunat.calendar import peru_today
from tests.real_tenant.seed import document_body, seed
from tests.real_tenant.server import THROTTLED, running, stand_in
from tests.real_tenant.variants import PRO5, PRO9, TUKIFAC, Variant


@pytest.mark.parametrize("variant", [PRO9, TUKIFAC, PRO5], ids=lambda v: v.name)
def test_reads_are_paced_under_the_limit(variant: Variant) -> None:
    standin = stand_in(variant, limit=5, window=1.0)
    seed(standin.tenant)
    said: list[str] = []
    with (
        running(standin),
        Client(standin.root, standin.token, cache=False, rate_window=1.0, progress=said.append) as client,
    ):
        started = time.monotonic()
        for _ in range(12):
            assert len(client.documents.latest(fresh=True)) == 13
        elapsed = time.monotonic() - started
    assert standin.throttled == 0  # never refused: it waited before the budget ran out
    assert elapsed >= 2.0  # 12 requests, 4 a window (one kept in reserve): two waits of a window
    assert any(s.startswith("Esperando") and "5 solicitudes cada 1 s" in s for s in said), said


def test_a_refused_issue_is_sent_again_unchanged_and_made_once() -> None:
    standin = stand_in(PRO9, limit=3, window=1.0)
    seed(standin.tenant)
    with running(standin), Client(standin.root, standin.token, cache=False, rate_window=1.0) as client:
        headers = {"Authorization": f"Bearer {standin.token}", "Accept": "application/json"}
        for _ in range(3):  # another tab of the same user spends the window
            httpx.get(f"{standin.root}/api/sale-note/series", headers=headers)
        refused = httpx.get(f"{standin.root}/api/sale-note/series", headers=headers)
        assert refused.status_code == 500 and refused.json()["message"] == THROTTLED
        assert "X-RateLimit-Limit" not in refused.headers
        before = len(standin.tenant.documents)
        result = client.documents.issue(document_body(peru_today()))
    assert result.number.startswith("F001-") and result.accepted
    assert len(standin.tenant.documents) == before + 1  # refused once, sent again, made once
    assert standin.count("POST", "/api/documents") == 2
    assert standin.throttled == 2  # the raw request above and the connector's first try


def test_a_tenant_that_keeps_refusing_raises_rate_limit_error() -> None:
    standin = stand_in(PRO9, limit=0, window=0.2)
    with running(standin), Client(standin.root, standin.token, cache=False, rate_window=0.2) as client:
        with pytest.raises(RateLimitError) as caught:
            client.documents.issue(document_body(peru_today()))
    assert isinstance(caught.value, ServerError) and "sin procesarla" in caught.value.message
    assert standin.count("POST", "/api/documents") == 4 and not standin.tenant.documents
    with running(standin), Client(standin.root, standin.token, cache=False, rate_window=0.2) as client:
        status = client.ping()  # a connection check does not wait: it says what happened at once
    assert not status.ok and standin.count("GET", "/api/documents/lists") == 1


@pytest.mark.parametrize("variant", [PRO9, TUKIFAC, PRO5], ids=lambda v: v.name)
def test_another_500_on_issuing_is_an_outcome_to_check(variant: Variant) -> None:
    standin = stand_in(variant)
    with running(standin), Client(standin.root, standin.token, cache=False) as client:
        with pytest.raises(OutcomeUnknownError) as caught:
            client.documents.issue({**document_body(peru_today()), "serie_documento": "F999"})
    error = caught.value
    assert error.reason == "La serie ingresada F999, es incorrecta." and error.status == 500
    assert error.message.startswith(error.reason)
    assert "client.documents.latest(fresh=True)" in error.message and "F999" in error.message
    assert standin.count("POST", "/api/documents") == 1  # never sent twice on its own
