"""Caching of reads (requests-cache, per tenant and token), retries of reads only, timeouts."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import pytest

from connector import CacheSettings, Client, ServerError, TransportError
from connector.http import cache_directory
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.connector.standin import Answer, StandIn
from tests.samples.bodies import invoice_body
from tests.samples.tenants import ACME, ACME_TOKEN, OTHER, OTHER_TOKEN

LIST = {"data": [{"id": 1, "number": "F001-1", "date_of_issue": "01-11-2026", "total": "118.00"}]}


def test_second_list_is_served_from_the_cache(client: Client) -> None:
    day = peru_today()
    client.documents.issue(invoice_body())
    first = client.documents.list(day, day)
    second = client.documents.list(day, day)
    assert not first.from_cache and second.from_cache
    assert second.rows == first.rows
    assert client.documents.latest().from_cache is False
    assert client.documents.latest().from_cache is True


def test_fresh_bypasses_and_clear_cache_forgets(client: Client) -> None:
    day = peru_today()
    client.documents.list(day, day)
    assert client.documents.list(day, day, fresh=True).from_cache is False
    assert client.documents.list(day, day).from_cache is True  # the fresh answer was stored
    client.clear_cache()
    assert client.documents.list(day, day).from_cache is False


def test_issuing_is_never_cached_and_drops_cached_lists(client: Client) -> None:
    day = peru_today()
    before = client.documents.list(day, day)
    one = client.documents.issue(invoice_body())
    two = client.documents.issue(invoice_body())
    assert one.external_id != two.external_id and two.correlative == one.correlative + 1
    after = client.documents.list(day, day)
    assert not after.from_cache  # the issue dropped this client's cached lists
    ids = {r.external_id for r in after}
    assert {one.external_id, two.external_id} <= ids and len(after) == len(before) + 2


def test_cache_files_are_per_tenant_and_token(live: LiveService, tmp_path: Path) -> None:
    settings = CacheSettings(directory=tmp_path)
    with (
        Client(live.base_url(ACME), ACME_TOKEN, cache=settings) as acme,
        Client(live.base_url(OTHER), OTHER_TOKEN, cache=settings) as other,
        Client(live.base_url(ACME), ACME_TOKEN, cache=settings) as acme_again,
    ):
        acme.documents.latest()
        other.documents.latest()
        assert other.documents.latest().from_cache
        assert acme_again.documents.latest().from_cache  # same tenant and token: same cache file
        files = sorted(p.name for p in tmp_path.glob("*.sqlite"))
        assert len(files) == 2
        assert all(ACME_TOKEN not in name and OTHER_TOKEN not in name for name in files)
        for path in tmp_path.glob("*.sqlite*"):
            assert ACME_TOKEN.encode() not in path.read_bytes()  # requests-cache redacts Authorization


def test_a_client_caches_nothing_unless_asked(live: LiveService, tmp_path: Path) -> None:
    with Client(live.base_url(ACME), ACME_TOKEN) as client:
        client.documents.latest()
        assert client.cache_settings is None and not client.documents.latest().from_cache
    assert not (tmp_path / "cache").exists()  # a library writes no file of its own


def test_default_cache_dir_comes_from_the_environment(live: LiveService, tmp_path: Path) -> None:
    assert cache_directory(CacheSettings()) == tmp_path / "cache"  # set by the autouse fixture
    with Client(live.base_url(ACME), ACME_TOKEN, cache=True) as client:
        client.documents.latest()
        assert client.cache_settings == CacheSettings()
    assert list((tmp_path / "cache").glob("*.sqlite"))


def test_memory_backend_and_no_cache(live: LiveService, tmp_path: Path) -> None:
    with Client(live.base_url(ACME), ACME_TOKEN, cache=CacheSettings(backend="memory")) as client:
        client.documents.latest()
        assert client.documents.latest().from_cache
    with Client(live.base_url(ACME), ACME_TOKEN, cache=False) as client:
        client.documents.latest()
        assert client.cache_settings is None
        assert not client.documents.latest().from_cache
        client.clear_cache()  # harmless without a cache
    assert not list((tmp_path / "cache").glob("*"))


def test_expiry_is_explicit_and_longer_for_closed_ranges(client: Client) -> None:
    today = peru_today()
    past = today - dt.timedelta(days=10)
    client.documents.list(past, past)
    client.documents.list(today - dt.timedelta(days=1), today)
    client.documents.latest()
    cache = client._http._reads.cache  # type: ignore[attr-defined]  # white box: what is stored
    lifetimes = {}
    for response in cache.filter():
        lifetimes[response.url.rsplit("/api/documents/", 1)[1]] = (
            response.expires - response.created_at
        ).total_seconds()
    assert lifetimes == {
        f"lists/{past}/{past}": pytest.approx(900, abs=5),
        f"lists/{today - dt.timedelta(days=1)}/{today}": pytest.approx(60, abs=5),
        "lists": pytest.approx(60, abs=5),
    }


def test_expired_entries_are_fetched_again(live: LiveService, tmp_path: Path) -> None:
    settings = CacheSettings(directory=tmp_path, expire_after=1)
    with Client(live.base_url(ACME), ACME_TOKEN, cache=settings) as client:
        client.documents.latest()
        assert client.documents.latest().from_cache
        time.sleep(1.2)
        assert not client.documents.latest().from_cache


def test_reads_retry_with_backoff_and_issuing_does_not(standin: StandIn) -> None:
    standin.on("GET", "/api/documents/lists", Answer(503, "busy"), Answer(502, "busy"), Answer(200, LIST))
    standin.on("POST", "/api/documents", Answer(503, {"success": False, "message": "busy"}))
    with Client(standin.root, "real-token", cache=False) as client:
        started = time.monotonic()
        rows = client.documents.latest()
        assert len(rows) == 1 and standin.count("GET", "/api/documents/lists") == 3
        assert time.monotonic() - started >= 0.2  # backoff between attempts
        with pytest.raises(ServerError):
            client.documents.issue(invoice_body())
        assert standin.count("POST", "/api/documents") == 1


def test_issuing_timeout_is_not_retried_and_says_how_to_reconcile(standin: StandIn) -> None:
    standin.on("POST", "/api/documents", Answer(200, {"success": True, "data": {}}, delay=1.5))
    with Client(standin.root, "real-token", cache=False, timeout=0.5) as client:
        with pytest.raises(TransportError) as caught:
            client.documents.issue(invoice_body())
    assert "client.documents.find" in caught.value.message and caught.value.status is None
    time.sleep(1.2)
    assert standin.count("POST", "/api/documents") == 1


def test_every_request_carries_a_timeout(standin: StandIn) -> None:
    standin.on("GET", "/api/documents/lists", Answer(200, LIST, delay=1.0))
    with Client(standin.root, "real-token", cache=False, timeout=0.3) as client:
        assert client.timeout == 0.3
        started = time.monotonic()
        with pytest.raises(TransportError):
            client.documents.latest()
        assert time.monotonic() - started < 5  # read retries, each bounded by the timeout


def test_a_cached_list_is_parsed_once(client: Client) -> None:
    day = peru_today()
    client.documents.issue(invoice_body())
    client.documents.list(day, day)
    second = client.documents.list(day, day)
    frame = second.to_dataframe()
    third = client.documents.list(day, day)
    assert second.from_cache and third.from_cache
    assert third.rows is second.rows  # not parsed again
    assert third.to_dataframe().equals(frame)
    frame.loc[:, "total"] = 0.0  # callers get their own DataFrame
    assert not third.to_dataframe()["total"].eq(0.0).all()
    client.documents.issue(invoice_body())  # invalidates: the next list is fetched and parsed anew
    fourth = client.documents.list(day, day)
    assert not fourth.from_cache and len(fourth) == len(third) + 1
