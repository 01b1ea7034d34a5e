"""Idempotent issuing: a retried sale answers with the document it already made, never a second one.

The key comes as ``offline_id`` in the body or in the ``Idempotency-Key`` header; a replay carries
``was_duplicate: true`` and ``Idempotent-Replayed: true``; the same key with another body is a 409; keys
are per tenant. Concurrent requests with one key make exactly one document (the unique index decides),
on the live service (threads; PostgreSQL issues in a thread pool) and across two worker processes.
"""

from __future__ import annotations

import json
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import LiveService
from tests.samples.bodies import invoice_body
from tests.samples.tenants import ACME, ACME_TOKEN
from tests.served import serve
from tests.shops import new_shop

SAME_ANSWER_KEYS = ("number", "filename", "external_id", "state_type_id", "hash", "qr", "id")


def _key() -> str:
    return f"pos-1-{uuid.uuid4()}"


def _issue(client: httpx.Client, body: dict[str, Any], key: str | None = None) -> httpx.Response:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return client.post("/api/documents", json=body, headers=headers)


def _documents_numbered(client: httpx.Client, number: str) -> list[dict[str, Any]]:
    day = invoice_body()["fecha_de_emision"]
    rows = client.get(f"/api/documents/lists/{day}/{day}").json()["data"]
    return [row for row in rows if row["number"] == number]


def _latest_id(client: httpx.Client) -> int | None:
    rows = client.get("/api/documents/lists").json()["data"]
    return max((row["id"] for row in rows), default=None)


def _assert_same_document(first: dict[str, Any], again: dict[str, Any]) -> None:
    for key in SAME_ANSWER_KEYS:
        assert again["data"][key] == first["data"][key], key
    assert again["links"] == first["links"]
    assert again["response"] == first["response"]


def test_a_retried_offline_id_answers_with_the_first_document(acme: httpx.Client) -> None:
    body = invoice_body(offline_id=_key())
    first = acme.post("/api/documents", json=body)
    assert first.status_code == 200, first.text
    assert first.json()["was_duplicate"] is False
    assert "idempotent-replayed" not in first.headers
    assert first.json()["data"]["state_type_id"] == "05" and first.json()["links"]["cdr"]
    again = acme.post("/api/documents", json=body)
    assert again.status_code == 200, again.text
    assert again.json()["was_duplicate"] is True
    assert again.headers["idempotent-replayed"] == "true"
    _assert_same_document(first.json(), again.json())
    assert len(_documents_numbered(acme, first.json()["data"]["number"])) == 1


def test_the_header_and_the_body_key_are_one_key(acme: httpx.Client) -> None:
    key = _key()
    first = _issue(acme, invoice_body(), key)
    assert first.status_code == 200 and first.json()["was_duplicate"] is False
    by_body = acme.post("/api/documents", json=invoice_body(offline_id=key))
    both = _issue(acme, invoice_body(offline_id=key), key)
    for again in (by_body, both):
        assert again.status_code == 200, again.text
        assert again.json()["was_duplicate"] is True
        _assert_same_document(first.json(), again.json())


def test_the_same_key_with_another_body_is_a_conflict_and_issues_nothing(acme: httpx.Client) -> None:
    key = _key()
    first = _issue(acme, invoice_body(), key)
    assert first.status_code == 200
    other = invoice_body(observaciones="otra venta")
    answer = _issue(acme, other, key)
    assert answer.status_code == 409
    body = answer.json()
    assert body["success"] is False and body["error_code"] == "IDEMPOTENCY_KEY_REUSED"
    assert first.json()["data"]["number"] in body["message"]
    assert body["errors"][0]["field"] == "offline_id"
    following = _issue(acme, invoice_body())  # the conflict consumed no correlative
    first_number = int(first.json()["data"]["number"].split("-")[1])
    assert int(following.json()["data"]["number"].split("-")[1]) > first_number


def test_a_key_in_the_body_and_another_in_the_header_are_refused(acme: httpx.Client) -> None:
    answer = _issue(acme, invoice_body(offline_id="venta-1"), "venta-2")
    assert answer.status_code == 422
    assert answer.json()["error_code"] == "IDEMPOTENCY_KEY_MISMATCH"
    assert {e["field"] for e in answer.json()["errors"]} == {"offline_id", "Idempotency-Key"}


@pytest.mark.parametrize("value", ["x" * 101, "a\u0000b", "tab\tkey", "\ud800", ["k"], {"k": 1}, 1.5, True])
def test_bad_keys_are_422_and_issue_nothing(acme: httpx.Client, value: Any) -> None:
    before = _latest_id(acme)
    raw = json.dumps(invoice_body(offline_id=value))  # ASCII-escaped: a lone surrogate survives as \ud800
    answer = acme.post("/api/documents", content=raw, headers={"Content-Type": "application/json"})
    assert answer.status_code == 422, answer.text
    # text XML cannot carry is refused at the edge, for every field alike
    unwritable = isinstance(value, str) and any(c in value for c in "\u0000\ud800")
    assert answer.json()["error_code"] == ("INVALID_CHARACTERS" if unwritable else "INVALID_IDEMPOTENCY_KEY")
    assert answer.json()["errors"][0]["field"] == "offline_id"
    assert _latest_id(acme) == before


def test_a_bad_header_key_is_422(acme: httpx.Client) -> None:
    answer = _issue(acme, invoice_body(), "x" * 101)
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["field"] == "Idempotency-Key"


def test_empty_keys_mean_no_key_and_whole_numbers_are_keys(acme: httpx.Client) -> None:
    one = acme.post("/api/documents", json=invoice_body(offline_id=""))
    two = acme.post("/api/documents", json=invoice_body(offline_id=""))
    assert one.json()["data"]["number"] != two.json()["data"]["number"]
    number_key = uuid.uuid4().int % 10**15
    first = acme.post("/api/documents", json=invoice_body(offline_id=number_key))
    again = _issue(acme, invoice_body(), str(number_key))
    assert again.json()["was_duplicate"] is True
    assert again.json()["data"]["external_id"] == first.json()["data"]["external_id"]


def test_a_refused_body_does_not_take_the_key(acme: httpx.Client) -> None:
    key = _key()
    bad = invoice_body(serie_documento="F999")  # a series the tenant does not have
    assert _issue(acme, bad, key).status_code == 422
    good = _issue(acme, invoice_body(), key)
    assert good.status_code == 200 and good.json()["was_duplicate"] is False


def test_an_explicit_number_retried_is_a_replay_not_a_duplicate(live: LiveService) -> None:
    shop = new_shop(live, "explicit")  # an explicit number moves its series' counter: a tenant of its own
    key = _key()
    body = invoice_body(numero_documento="500")
    with httpx.Client(base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}) as client:
        first = _issue(client, body, key)
        assert first.status_code == 200, first.text
        again = _issue(client, body, key)
        assert again.status_code == 200 and again.json()["was_duplicate"] is True
        assert again.json()["data"]["number"] == "F001-500"
        assert _issue(client, body).status_code == 409  # without the key it is the duplicate it always was


def test_keys_are_per_tenant(acme: httpx.Client, other: httpx.Client) -> None:
    key = _key()
    mine = _issue(acme, invoice_body(), key)
    theirs = _issue(other, invoice_body(), key)
    assert mine.status_code == theirs.status_code == 200
    assert theirs.json()["was_duplicate"] is False
    assert theirs.json()["data"]["external_id"] != mine.json()["data"]["external_id"]
    assert _issue(other, invoice_body(observaciones="x"), key).status_code == 409  # other's own key now
    assert (
        _issue(acme, invoice_body(), key).json()["data"]["external_id"] == mine.json()["data"]["external_id"]
    )


def _race(base_url: str, token: str, body: dict[str, Any], key: str, threads: int) -> list[httpx.Response]:
    """``threads`` clients send the same keyed request at the same moment (released by a barrier)."""
    barrier = threading.Barrier(threads)

    def attempt(_: int) -> httpx.Response:
        with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as c:
            barrier.wait()
            return _issue(c, body, key)

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(attempt, range(threads)))


def _assert_one_document(answers: list[httpx.Response]) -> None:
    assert [a.status_code for a in answers] == [200] * len(answers), [a.text for a in answers]
    bodies = [a.json() for a in answers]
    assert len({b["data"]["external_id"] for b in bodies}) == 1
    assert len({b["data"]["number"] for b in bodies}) == 1
    assert sorted(b["was_duplicate"] for b in bodies) == [False] + [True] * (len(bodies) - 1)


def test_concurrent_requests_with_one_key_make_one_document(live: LiveService) -> None:
    for _round in range(5):
        answers = _race(live.base_url(ACME), ACME_TOKEN, invoice_body(serie_documento="F002"), _key(), 8)
        _assert_one_document(answers)
        with live.client() as client:
            assert len(_documents_numbered(client, answers[0].json()["data"]["number"])) == 1


@pytest.mark.slow(seconds=31)
def test_concurrent_requests_with_one_key_across_worker_processes(live: LiveService, tmp_path: Path) -> None:
    """Two worker processes (on SQLite each queues on the writer lock, on PostgreSQL on the unique index):
    8 clients x 6 keys, every key makes one document, and the series has no gap."""
    with serve(
        live.settings, tmp_path / "serve.log", "--workers", "2", "--send-pending-every", "0"
    ) as served:
        numbers = []
        for _round in range(6):
            answers = _race(
                served.base_url(ACME), ACME_TOKEN, invoice_body(serie_documento="0001"), _key(), 8
            )
            _assert_one_document(answers)
            numbers.append(int(answers[0].json()["data"]["number"].split("-")[1]))
    assert numbers == list(range(numbers[0], numbers[0] + 6))
