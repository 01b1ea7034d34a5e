"""The local store (``connector/store.py``): first sync, incremental refreshes with and without this
service's list extension, what is fetched again and what never is, tenants kept apart, failures.

Every test works on a tenant of its own (``tests/shops.py``) of the live service, over HTTP; the
extension is switched off with the tenant setting ``list_changes`` (the service then answers as real
tenants do, ignoring the parameters)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from connector import Client
from connector.documents import ChangesPage
from connector.errors import TransportError
from connector.store import LocalStore, StoreError
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.samples.bodies import invoice_body
from tests.shops import Shop, new_shop

TODAY = peru_today()
BACK_DATED = {"restrict_receipt_date": False, "authority_check_deadlines": False}


class Counted:
    """Wraps ``client.documents.changes``: records each range asked and can fail at a given call."""

    def __init__(self, client: Client, fail_at: int | None = None) -> None:
        self.calls: list[tuple[dt.date, dt.date, dict[str, Any]]] = []
        self.fail_at = fail_at
        self._changes = client.documents.changes
        client.documents.changes = self  # type: ignore[method-assign]

    def __call__(self, start: dt.date, end: dt.date, **options: Any) -> ChangesPage:
        self.calls.append((start, end, options))
        if self.fail_at is not None and len(self.calls) >= self.fail_at:
            raise TransportError("No se pudo conectar con el servicio (prueba).")
        return self._changes(start, end, **options)

    def ranges(self) -> list[tuple[dt.date, dt.date]]:
        """The ranges asked, without the probe of the extension."""
        return [(a, b) for a, b, _ in self.calls if a.year > 2000]


@pytest.fixture(params=["extension", "plain"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def shop(live: LiveService, mode: str) -> Shop:
    return new_shop(live, "store", list_changes=mode == "extension", **BACK_DATED)


@pytest.fixture
def client(shop: Shop) -> Iterator[Client]:
    with shop.client() as c:
        yield c


def _store(tmp_path: Path, client: Client, **options: Any) -> LocalStore:
    return LocalStore.for_client(client, tmp_path / "stores", **options)


def _issue(client: Client, day: dt.date = TODAY, *, send: bool = True) -> str:
    body = invoice_body(fecha_de_emision=day.isoformat())
    if not send:
        body["acciones"] = {**body.get("acciones", {}), "enviar_xml_firmado": False}
    return client.documents.issue(body).external_id


def _states(store: LocalStore, start: dt.date, end: dt.date) -> dict[str, str]:
    return {str(r["external_id"]): str(r["state_type_id"]) for r in store.documents(start, end).rows}


def test_first_sync_holds_what_the_list_answers(tmp_path: Path, client: Client, mode: str) -> None:
    ids = [_issue(client, TODAY - dt.timedelta(days=n)) for n in (0, 0, 2)]
    unsent = _issue(client, send=False)
    with _store(tmp_path, client) as store:
        report = store.sync(TODAY - dt.timedelta(days=3), TODAY)
        assert report.extended is (mode == "extension")
        assert report.days_fetched == 4
        listed = client.documents.list(TODAY - dt.timedelta(days=3), TODAY, details=True)
        kept = store.documents(TODAY - dt.timedelta(days=3), TODAY)
        assert sorted(r["external_id"] for r in kept.rows) == sorted([*ids, unsent])
        assert {r["external_id"]: r for r in kept.rows} == {r["external_id"]: r for r in listed.rows}
        assert kept.has_details  # this service sends the lines: Periodos and Cuentas por cobrar read them
        # exact amounts in SQL: 4 facturas of 118.00
        total = store.sql("SELECT sum(total) AS t, typeof(sum(total)) AS kind FROM documents")
        assert Decimal(str(total["t"][0])) == Decimal("472.00")
        assert str(total["kind"][0]).startswith("DECIMAL")
        frame = store.frame(TODAY - dt.timedelta(days=3), TODAY)
        assert len(frame) == 4 and set(frame["state_type_id"]) == {"05", "01"}


def test_refresh_picks_up_a_state_change_and_a_new_document(
    tmp_path: Path, client: Client, mode: str
) -> None:
    voided, kept = _issue(client), _issue(client)
    with _store(tmp_path, client) as store:
        store.sync(TODAY - dt.timedelta(days=1), TODAY)
        client.documents.update_status(voided, "11")
        new = _issue(client)
        report = store.sync(TODAY - dt.timedelta(days=1), TODAY)
        states = _states(store, TODAY - dt.timedelta(days=1), TODAY)
        assert states == {voided: "11", kept: "05", new: "05"}
        if mode == "extension":
            assert report.days_fetched == 0  # one walk of what changed, no day fetched again
        else:
            assert report.days_fetched == 2  # recent days are fetched again whole


def test_a_settled_past_day_is_not_fetched_again(tmp_path: Path, client: Client, mode: str) -> None:
    past = TODAY - dt.timedelta(days=20)
    old = _issue(client, past)
    with _store(tmp_path, client) as store:
        counted = Counted(client)
        store.sync(past, TODAY)
        assert any(a <= past <= b for a, b in counted.ranges())
        counted.calls.clear()
        new = _issue(client)
        report = store.sync(past, TODAY)
        assert _states(store, past, TODAY) == {old: "05", new: "05"}
        if mode == "extension":
            # one request for what changed since the last sync (the probe was remembered)
            assert report.requests == 1 and report.days_fetched == 0
            ((start, end, options),) = counted.calls
            assert options["since"] is not None
        else:
            # only the recent week again: the day of the accepted factura, 20 days ago, is not asked
            asked = counted.ranges()
            assert asked and all(a >= TODAY - dt.timedelta(days=7) and b <= TODAY for a, b in asked)
            assert report.days_fetched == 8


def test_a_past_day_with_a_document_still_moving_is_fetched_again(tmp_path: Path, client: Client) -> None:
    past, settled = TODAY - dt.timedelta(days=20), TODAY - dt.timedelta(days=15)
    unsent = _issue(client, past, send=False)  # registered (01): it will be sent and change
    _issue(client, settled)
    with _store(tmp_path, client) as store:
        store.sync(past, TODAY)
        counted = Counted(client)
        client.documents.send(unsent)
        store.sync(past, TODAY)
        assert _states(store, past, past)[unsent] == "05"
        # the accepted day stays as it was: not asked again (plain), or only for its changes (extension)
        for start, end, options in counted.calls:
            assert options.get("since") is not None or not start <= settled <= end


def test_without_the_extension_nothing_is_asked_with_a_cursor(
    tmp_path: Path, live: LiveService, client: Client, shop: Shop, mode: str
) -> None:
    """A tenant that stops offering the extension (an old-style answer) is read by ranges, and a
    tenant that starts offering it is walked from scratch once: nothing goes missing either way."""
    first = _issue(client)
    with _store(tmp_path, client) as store:
        store.sync(TODAY - dt.timedelta(days=2), TODAY)
        shop.set(list_changes=mode != "extension")  # the other way round
        second = _issue(client)
        store._probed = None  # ask again (a new dashboard run would, after PROBE_TTL)
        report = store.sync(TODAY - dt.timedelta(days=2), TODAY)
        assert report.extended is (mode != "extension")
        assert set(_states(store, TODAY - dt.timedelta(days=2), TODAY)) == {first, second}


def test_the_store_holds_one_tenant(tmp_path: Path, live: LiveService, client: Client) -> None:
    mine = _issue(client)
    neighbour = new_shop(live, "neighbour")
    with neighbour.client() as theirs:
        foreign = _issue(theirs)
        with _store(tmp_path, client) as store:
            store.sync(TODAY, TODAY)
            assert set(store.sql("SELECT external_id FROM documents")["external_id"]) == {mine}
            with pytest.raises(StoreError, match="es de la empresa"):
                store.sync(TODAY, TODAY, client=theirs)
            assert foreign not in set(store.sql("SELECT external_id FROM documents")["external_id"])
        with LocalStore.for_client(theirs, tmp_path / "stores") as own:  # its own file
            own.sync(TODAY, TODAY)
            assert set(own.sql("SELECT external_id FROM documents")["external_id"]) == {foreign}


def _failing_sync(store: LocalStore, client: Client, fail_at: int, start: dt.date) -> Counted:
    counted = Counted(client, fail_at=fail_at)
    with pytest.raises(TransportError):
        store.sync(start, TODAY)
    client.documents.changes = counted._changes  # type: ignore[method-assign]
    return counted


def test_a_failed_first_sync_keeps_whole_days(tmp_path: Path, client: Client, mode: str) -> None:
    days = [TODAY - dt.timedelta(days=n) for n in (2, 1, 0)]
    ids = {day: _issue(client, day) for day in days}
    # one day a chunk, one document a page: the request after the first day fails (after the probe, the
    # first day is one request without the extension, two pages with it)
    with _store(tmp_path, client, chunk_days=1, walk_days=1, page_rows=1, recent_days=0) as store:
        _failing_sync(store, client, fail_at=3 if mode == "plain" else 4, start=days[0])
        committed = store.fetched_days()
        assert committed == days[:1]
        assert set(_states(store, days[0], TODAY)) == {ids[days[0]]}  # whole days only
        report = store.sync(days[0], TODAY)
        assert report.days_fetched == 2
        assert set(_states(store, days[0], TODAY)) == set(ids.values())


def test_a_failed_refresh_leaves_the_last_sync(tmp_path: Path, client: Client, mode: str) -> None:
    first, second = _issue(client), _issue(client)
    with _store(tmp_path, client, page_rows=1) as store:
        store.sync(TODAY - dt.timedelta(days=1), TODAY)
        before = store.sql("SELECT external_id, state_type_id FROM documents ORDER BY 1")
        marks = store.sql("SELECT * FROM days ORDER BY day")
        client.documents.update_status(first, "11")
        client.documents.update_status(second, "11")
        # the probe is remembered: the refresh's first request fails (plain), or its second page
        _failing_sync(store, client, fail_at=1 if mode == "plain" else 2, start=TODAY - dt.timedelta(days=1))
        assert store.sql("SELECT external_id, state_type_id FROM documents ORDER BY 1").equals(before)
        assert store.sql("SELECT * FROM days ORDER BY day").equals(marks)
        store.sync(TODAY - dt.timedelta(days=1), TODAY)
        assert _states(store, TODAY - dt.timedelta(days=1), TODAY) == {first: "11", second: "11"}


def _ids(call: Callable[[], ChangesPage]) -> list[str]:
    return [str(r["external_id"]) for r in call().rows]


def test_the_extension_pages_and_filters(live: LiveService) -> None:
    shop = new_shop(live, "pages")
    with shop.client() as client:
        ids = [_issue(client) for _ in range(3)]
        first = client.documents.changes(TODAY, TODAY, limit=2)
        assert first.extended and first.next is not None and len(first.rows) == 2
        rest = client.documents.changes(TODAY, TODAY, limit=2, after=first.next)
        assert rest.next is None
        assert [r["external_id"] for r in first.rows + rest.rows] == ids  # by id
        assert first.as_of is not None
        later = first.as_of + dt.timedelta(seconds=2)
        client.documents.update_status(ids[1], "11")
        changed = _ids(lambda: client.documents.changes(TODAY, TODAY, since=first.as_of - dt.timedelta(0)))
        assert ids[1] in changed
        assert _ids(lambda: client.documents.changes(TODAY, TODAY, since=later + dt.timedelta(hours=1))) == []
        shop.set(list_changes=False)
        plain = client.documents.changes(TODAY, TODAY, limit=1)
        assert not plain.extended and len(plain.rows) == 3  # the old-style answer: every row


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("changed_since=ayer", "changed_since"),
        ("limit=0", "limit"),
        ("limit=20001", "limit"),
        ("limit=diez", "limit"),
        ("after=-1", "after"),
        ("after=x", "after"),
    ],
)
def test_bad_extension_parameters_are_422(acme: Any, query: str, field: str) -> None:
    answer = acme.get(f"/api/documents/lists/{TODAY}/{TODAY}?{query}")
    assert answer.status_code == 422
    body = answer.json()
    assert body["success"] is False
    assert field in str(body)
