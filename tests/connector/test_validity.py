"""SUNAT's validity API over real HTTP on loopback: the analyst's client against the simulator (tokens,
throttling, bad credentials, outage, secrets kept out of logs) and the sweep of a month against the live
service's simulator at /validez (disagreements found and applied with an audit record, the corrective
summary of boletas whose summary got no answer, an interrupted sweep resumed)."""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
import uvicorn

from connector import Client, wait_for_ticket
from connector.builders import Customer, Invoice, Line, Receipt
from connector.validity import (
    CredentialsRefused,
    QueryRefused,
    Throttled,
    ValidityClient,
    ValidityEndpoint,
    ValidityUnavailable,
)
from connector.validity_sweep import apply, corrective_summary, render, sweep
from facturador.authority.registry import InMemoryRegistry, RegistryKey, RegistryRecord
from facturador.authority.validity.app import create_validity_app
from facturador.authority.validity.simulator import (
    SIMULATOR_CLIENT_ID,
    SIMULATOR_CLIENT_SECRET,
    ValiditySimulator,
)
from sunat.calendar import peru_today
from sunat.validity import ValidityQuery
from tests.conftest import LiveService, free_port
from tests.shops import Shop, new_shop

RUC = "20100066603"
PERSON = Customer.dni("46027862", "JUAN PEREZ QUISPE")
COMPANY = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.", address="Av. Lima 123", ubigeo="150101")


class FakeClock:
    """Seconds that move only when a test (or a client's ``sleep``) moves them."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def simulator(clock: FakeClock) -> Iterator[tuple[ValiditySimulator, str]]:
    """A standalone validity simulator on a loopback port, its clock the test's, 2 queries a second."""
    registry = InMemoryRegistry()
    registry.record(RegistryKey(RUC, "01", "F001", 1), RegistryRecord("accepted", "", "0"))
    registry.record(RegistryKey(RUC, "03", "B001", 1), RegistryRecord("voided", "", "0"))
    registry.record(RegistryKey(RUC, "01", "F001", 2), RegistryRecord("rejected", "", "2017"))
    sim = ValiditySimulator(registry, rate=2, clock=clock)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_validity_app(sim), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline, "the simulator did not start"
        time.sleep(0.02)
    yield sim, f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def endpoint(url: str, secret: str = SIMULATOR_CLIENT_SECRET, ruc: str = RUC) -> ValidityEndpoint:
    return ValidityEndpoint(url, url, SIMULATOR_CLIENT_ID, secret, ruc)


def query(series: str = "F001", number: int = 1, doc_type: str = "01") -> ValidityQuery:
    return ValidityQuery(RUC, doc_type, series, number, dt.date(2026, 11, 3), Decimal("118.00"))


def test_the_query_body_is_sunats() -> None:
    assert json.loads(query().to_json()) == {
        "numRuc": RUC,
        "codComp": "01",
        "numeroSerie": "F001",
        "numero": 1,
        "fechaEmision": "03/11/2026",
        "monto": 118.0,
    }
    assert b'"monto":118.00}' in query().to_json()  # two decimals, never a float's digits


def test_answers_tokens_throttling_and_expiry(
    simulator: tuple[ValiditySimulator, str], clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    sim, url = simulator
    caplog.set_level(logging.DEBUG)
    with ValidityClient(endpoint(url), sleep=clock.sleep, clock=clock) as client:
        verdicts = [client.check(q).verdict for q in (query(), query("B001", 1, "03"), query("F001", 2))]
        assert verdicts == ["accepted", "voided", "rejected"]
        assert client.check(query("F001", 3)).verdict == "not_found"
        # 2 a second with a burst of 2: the 3rd and 4th were throttled, waited out as Retry-After said
        assert client.stats["throttled"] >= 1 and client.stats["waited"] >= 1
        assert client.stats["tokens"] == 1  # one token for every query
        assert sim.answered == 4
        # SUNAT's token expired (its clock moved an hour) while ours thought it valid: renewed once
        client._token = (client._token[0], float("inf"))  # type: ignore[index]
        clock.sleep(3601)
        assert client.check(query()).verdict == "accepted"
        assert client.stats["tokens"] == 2
    assert SIMULATOR_CLIENT_SECRET not in caplog.text


def test_throttled_beyond_the_bound_and_errors(
    simulator: tuple[ValiditySimulator, str], clock: FakeClock
) -> None:
    sim, url = simulator
    with ValidityClient(endpoint(url), sleep=lambda _s: None, clock=clock, max_wait=5) as client:
        client.check(query())
        client.check(query())
        with pytest.raises(Throttled) as caught:  # the clock never moves: waiting cannot help
            client.check(query())
        assert caught.value.retry_after == 1 and "continúa" in str(caught.value)
        clock.sleep(5)
        with pytest.raises(QueryRefused, match="numero"):
            client.check(ValidityQuery(RUC, "01", "F001", 0, dt.date(2026, 11, 3)))
        sim.outage = True
        clock.sleep(5)
        with pytest.raises(ValidityUnavailable):
            client.check(query())
    with ValidityClient(endpoint(url, secret="wrong"), clock=clock) as client:
        with pytest.raises(CredentialsRefused, match="client secret"):
            client.check(query())
        assert "wrong" not in repr(client.endpoint)


def test_a_sweep_stops_on_bad_credentials_or_throttling_and_a_rerun_continues(
    live: LiveService, tmp_path: Path, clock: FakeClock
) -> None:
    shop = new_shop(live, "validity-stop")
    with shop.client() as client:
        for total in ("59.00", "35.40", "11.80"):
            client.documents.issue(Receipt(customer=PERSON, lines=[Line("Polo", 1, unit_price=total)]))
        period = peru_today().strftime("%Y-%m")
        progress = tmp_path / "sweep.jsonl"
        url = live.root + "/validez"
        with ValidityClient(endpoint(url, secret="wrong", ruc=shop.ruc)) as bad:
            report = sweep(client, bad, period, progress=progress, clock=clock, sleep=clock.sleep)
        assert report.stopped_by.startswith("CredentialsRefused") and report.checked == 0
        assert "vuelva a ejecutar" in render(report)
        with ValidityClient(endpoint(url, ruc=shop.ruc)) as good:
            report = sweep(
                client, good, period, progress=progress, stop_after=1, clock=clock, sleep=clock.sleep
            )
            assert report.stopped_by == "stop_after" and (report.checked, report.total) == (1, 3)
            report = sweep(client, good, period, progress=progress, rate=50, clock=clock, sleep=clock.sleep)
        assert report.complete and report.resumed == 1 and report.asked == 2
        lines = [json.loads(line) for line in progress.read_text().splitlines()]
        assert len({line["external_id"] for line in lines}) == len(lines) == 3  # nobody asked twice
        assert not report.disagreements  # undeclared boletas: SUNAT has none of them, nor do the books


def issue_factura(client: Client, price: str) -> str:
    result = client.documents.issue(Invoice(customer=COMPANY, lines=[Line("Inca Kola", 1, unit_price=price)]))
    assert result.state_type_id == "05"
    return result.external_id


def issue_boleta(client: Client, price: str) -> str:
    result = client.documents.issue(Receipt(customer=PERSON, lines=[Line("Polo", 1, unit_price=price)]))
    return result.external_id


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "validity")


def test_the_sweep_finds_every_disagreement_applies_sunats_state_and_proposes_the_corrective(
    live: LiveService, shop: Shop, tmp_path: Path, clock: FakeClock
) -> None:
    with shop.client() as client:
        agreed = issue_factura(client, "10.00")
        booked_rejected = issue_factura(client, "20.00")
        booked_voided = issue_factura(client, "30.00")
        declared = issue_boleta(client, "59.00")
        lost_but_declared = issue_boleta(client, "35.40")
        void_lost = issue_boleta(client, "21.00")
        day = peru_today()
        ref = client.summaries.declare(day)
        assert wait_for_ticket(client.summaries, external_id=ref.external_id, timeout=60).accepted
        never_declared = issue_boleta(client, "11.80")  # after the summary: SUNAT never heard of it
        # the books say what a lost ticket or a hand error leaves behind
        client.documents.update_status(booked_rejected, "09", reason="prueba")
        client.documents.update_status(booked_voided, "11", reason="prueba")
        client.documents.update_status(lost_but_declared, "03", reason="resumen sin respuesta (0127)")
        client.documents.update_status(never_declared, "03", reason="resumen sin respuesta (98)")
        client.documents.update_status(void_lost, "13", reason="baja sin respuesta (2223)")

        url = live.root + "/validez"
        with ValidityClient(endpoint(url, ruc=shop.ruc)) as validity:
            report = sweep(
                client,
                validity,
                day.strftime("%Y-%m"),
                progress=tmp_path / "p.jsonl",
                rate=50,
                clock=clock,
                sleep=clock.sleep,
            )
        assert report.complete and report.total == 7
        found = {d.external_id: (d.local_state, d.verdict, d.proposed_state) for d in report.disagreements}
        assert found == {
            booked_rejected: ("09", "accepted", "05"),
            booked_voided: ("11", "accepted", "05"),
            lost_but_declared: ("03", "accepted", "05"),
            never_declared: ("03", "not_found", "01"),
            void_lost: ("13", "accepted", "05"),
        }
        assert agreed not in found and declared not in found
        lines = {line.external_id: line.condition for line in corrective_summary(report.disagreements)}
        assert lines == {never_declared: "1", void_lost: "3"}
        text = render(report)
        assert "Resumen diario corrector propuesto" in text and "condición 3 (Anulado)" in text

        applied = apply(client, report, today=day)
        assert {d.external_id for d in applied} == set(found)
        changes = client.documents.state_changes(never_declared)
        assert changes is not None and "Consulta de validez SUNAT" in (changes[-1].reason or "")
        with ValidityClient(endpoint(url, ruc=shop.ruc)) as validity:
            again = sweep(
                client,
                validity,
                day.strftime("%Y-%m"),
                progress=tmp_path / "q.jsonl",
                rate=50,
                clock=clock,
                sleep=clock.sleep,
            )
        assert again.complete and again.disagreements == []


def test_boletas_of_a_summary_stuck_in_98_are_proved_missing_and_proposed_again(
    live: LiveService, tmp_path: Path, clock: FakeClock
) -> None:
    """A daily summary whose ticket stays 98 (SUNAT has not processed it): its boletas are 03 in the
    books and unknown to SUNAT, so they go in the corrective summary; once SUNAT processes the ticket the
    same boletas read accepted and, polled, the books agree."""
    stuck = new_shop(live, "validity-98", authority_ticket_delay=3600.0)
    with stuck.client() as client:
        first, second = issue_boleta(client, "59.00"), issue_boleta(client, "35.40")
        day = peru_today()
        ref = client.summaries.declare(day)
        assert client.summaries.status(external_id=ref.external_id).processing  # 98
        url = live.root + "/validez"
        with ValidityClient(endpoint(url, ruc=stuck.ruc)) as validity:
            report = sweep(
                client,
                validity,
                day.strftime("%Y-%m"),
                progress=tmp_path / "a.jsonl",
                rate=50,
                clock=clock,
                sleep=clock.sleep,
            )
        assert {(d.external_id, d.local_state, d.verdict) for d in report.disagreements} == {
            (first, "03", "not_found"),
            (second, "03", "not_found"),
        }
        lines = {line.external_id: line.condition for line in report.corrective}
        assert lines == {first: "1", second: "1"}
        assert "Resumen diario corrector propuesto" in render(report)
        live.clock.advance(3601)  # SUNAT processes the ticket at the next question
        assert wait_for_ticket(client.summaries, external_id=ref.external_id, timeout=60).accepted
        with ValidityClient(endpoint(url, ruc=stuck.ruc)) as validity:
            again = sweep(
                client,
                validity,
                day.strftime("%Y-%m"),
                progress=tmp_path / "b.jsonl",
                rate=50,
                clock=clock,
                sleep=clock.sleep,
            )
        assert again.complete and again.disagreements == []
