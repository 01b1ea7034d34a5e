"""A month closed in SIRE end to end: the service issues October's documents to its simulated SUNAT, the
SIRE simulator (``/sire`` of ``facturador serve``) builds the proposal from them with the mismatches real
life brings, and :func:`analysis.sire.sire_close` compares, replaces or accepts, follows every ticket,
registers the preliminar and records the ``sire`` close, over real HTTP on a loopback port. Lima's clock
is fixed at 2 November 2026 (``FACTURADOR_CLOCK``); the simulators' clock moves on only when the client
waits (its ``sleep`` advances it)."""

from __future__ import annotations

import datetime as dt
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from analysis.sire import sire_close
from connector import Client
from connector.closes import MonthCloses
from connector.sire import (
    SireClient,
    SireCredentialError,
    SireCredentials,
    SirePeriodNotOpen,
    SireProgress,
    SireProposalError,
    SireRejected,
    SireTicketTimeout,
    SireUnavailable,
    parse_proposal,
    progress_path,
)
from facturador.authority.sire.simulator import SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET
from sunat.calendar import peru_now
from sunat.identity import ruc_check_digit
from tests.common import issue
from tests.conftest import _fresh_postgres, free_port
from tests.samples.bodies import credit_note_body, invoice_body

NOW = "2026-11-02T10:00:00-05:00"
TODAY = dt.date(2026, 11, 2)
RUC = "2045678912" + str(ruc_check_digit("2045678912"))
TOKEN = "sire-shop-token-0123456789-abcdef"
#: A second and third company of the same service, for the interrupted close and the CLI's (each its own
#: SIRE state).
RUC_B = "2045678913" + str(ruc_check_digit("2045678913"))
TOKEN_B = "sire-shop-b-token-0123456789-abcdef"
RUC_C = "2045678914" + str(ruc_check_digit("2045678914"))
TOKEN_C = "sire-shop-c-token-0123456789-abcdef"
RUC_D = "2045678915" + str(ruc_check_digit("2045678915"))
TOKEN_D = "sire-shop-d-token-0123456789-abcdef"
COMPANIES = (
    ("sire-shop", RUC, TOKEN),
    ("sire-shop-b", RUC_B, TOKEN_B),
    ("sire-shop-c", RUC_C, TOKEN_C),
    ("sire-shop-d", RUC_D, TOKEN_D),
)


class Clock:
    """Epoch seconds: real time plus what the client's ``sleep`` advanced it by (so a test client never
    sleeps, and the CLI, which really sleeps, sees tickets finish too)."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.offset += seconds


@dataclass
class Service:
    root: str
    clock: Clock
    authority_dir: Path
    numbers: dict[str, str]

    def base_url(self, slug: str = "sire-shop") -> str:
        return f"{self.root}/t/{slug}"

    def sire(self, ruc: str = RUC, **options: Any) -> SireClient:
        credentials = options.pop(
            "credentials",
            SireCredentials(SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET, ruc, "MODDATOS", "MODDATOS"),
        )
        return SireClient(
            credentials,
            token_base=f"{self.root}/sire/v1",
            api_base=f"{self.root}/sire/v1/contribuyente/migeigv/libros",
            clock=self.clock,
            sleep=self.clock.advance,
            **options,
        )

    def mismatches(self, value: dict[str, Any], ruc: str = RUC) -> None:
        path = self.authority_dir / "sire-mismatches.json"
        path.write_bytes(orjson.dumps({ruc: value}))


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    import uvicorn

    from facturador.app import create_app
    from facturador.config import Settings
    from facturador.context import ServiceContext
    from facturador.domain.tenants import create_tenant

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FACTURADOR_CLOCK", NOW)
        data = tmp_path_factory.mktemp("sire-data")
        database_url, drop = None, None
        if os.environ.get("FACTURADOR_TEST_DATABASE_URL"):  # the proposal's query on PostgreSQL too
            database_url, drop = _fresh_postgres(os.environ["FACTURADOR_TEST_DATABASE_URL"])
        settings = Settings.resolve(data, database_url)
        clock = Clock()
        context = ServiceContext(settings, today=lambda: TODAY, clock=clock)
        with context.session() as session, session.begin():
            for slug, ruc, token in COMPANIES:
                create_tenant(
                    session,
                    settings,
                    slug,
                    ruc=ruc,
                    name="TIENDA SIRE S.A.C.",
                    address="Av. Los Próceres 100, Lima",
                    ubigeo="150101",
                    token=token,
                    overrides={"authority_ticket_delay": 0.0},
                )
        port = free_port()
        server = uvicorn.Server(
            uvicorn.Config(create_app(context), host="127.0.0.1", port=port, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 120
        while not server.started:
            assert time.monotonic() < deadline, "the service did not start"
            time.sleep(0.05)
        root = f"http://127.0.0.1:{port}"
        numbers: dict[str, str] = {}
        for slug, _ruc, token in COMPANIES:
            with httpx.Client(
                base_url=f"{root}/t/{slug}", headers={"Authorization": f"Bearer {token}"}, timeout=60
            ) as http:
                first = None
                for index, day in enumerate(("2026-10-30", "2026-10-31", "2026-10-31")):
                    body = invoice_body(fecha_de_emision=day, fecha_de_vencimiento=day)
                    answer = issue(http, body, accepted=True)
                    numbers[str(index)] = answer["data"]["number"]
                    first = first or answer["data"]["external_id"]
                note = credit_note_body(first, fecha_de_emision="2026-10-31")
                numbers["note"] = issue(http, note, accepted=True)["data"]["number"]
        try:
            yield Service(root, clock, settings.authority_dir, numbers)
        finally:
            server.should_exit = True
            thread.join(timeout=10)
            context.engine.dispose()
            if drop is not None:
                drop()


@pytest.fixture
def lima(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTURADOR_CLOCK", NOW)


def _key(number: str, kind: str = "01") -> str:
    series, _, correlative = number.partition("-")
    return f"{kind}-{series}-{int(correlative)}"


def _extra_row() -> str:
    """A factura SUNAT received that the books lack (issued elsewhere with the company's RUC)."""
    return (
        f"{RUC}|TIENDA SIRE S.A.C.|202610||15/10/2026||01|F009|77||6|20487654320|CLIENTE|0.00|100.00|0.00|"
        "18.00|0.00|0.00|0.00|0.00|0.00|0.00|0.00|0.00|118.00|PEN||||||"
    )


def _close(service: Service, tmp: Path, action: str | None, **options: Any) -> Any:
    client = Client(service.base_url(), TOKEN, cache=False)
    with client, service.sire() as sire:
        return sire_close(
            client,
            "2026-10",
            sire,
            closes_file=tmp / "tenant.closes.json",
            action=action,
            folder=tmp / "files",
            **options,
        )


def test_a_month_closed_end_to_end_replacing_a_proposal_that_differs(
    service: Service, tmp_path: Path, lima: None
) -> None:
    """The proposal differs three ways; the comparison names each; the replacement is uploaded (TUS),
    its ticket followed to «Terminado», the preliminar registered and the month closed from SIRE."""
    service.mismatches(
        {
            "202610": {
                "extra": [_extra_row()],
                "missing": [_key(service.numbers["2"])],
                "totals": {_key(service.numbers["1"]): "300.00"},
            }
        }
    )
    compared = _close(service, tmp_path, None)
    comparison = compared.comparison
    assert comparison is not None
    assert comparison.only_in_proposal == ["01-F009-77"]
    assert comparison.only_ours == [_key(service.numbers["2"])]
    differing = {(d["comprobante"], d["campo"], d["sunat"], d["nuestro"]) for d in comparison.differences}
    factura = _key(service.numbers["1"])
    assert differing == {
        (factura, 15, "254.24", "100.00"),
        (factura, 17, "45.76", "18.00"),
        (factura, 26, "300.00", "118.00"),
    }
    assert compared.closed is None and not compared.done
    assert "sin --accept ni --replace: nada se envió a SUNAT" in compared.lines

    report = _close(service, tmp_path, "replace")
    assert report.done and report.decision is not None and report.decision.code == "06"
    assert report.preliminary is not None and report.preliminary.code == "06"
    closes = MonthCloses(tmp_path / "tenant.closes.json")
    record = closes.record("2026-10")
    assert record is not None and record.source == "sire"
    # the preliminar is the books: 3 facturas and a note, the summary says so
    assert "01|3|" in report.summary and "07|1|" in report.summary
    assert any(
        line.startswith("reemplazo enviado: LE" + RUC + "20261000140400021112.zip") for line in report.lines
    )
    assert any("Terminado (06)" in line for line in report.lines)
    # the progress keeps the tickets and what was sent, and a third run says the month is closed
    progress = SireProgress(progress_path(tmp_path / "tenant.closes.json")).period("2026-10")
    assert progress["decision"]["action"] == "replace" and len(progress["decision"]["sha256"]) == 64
    assert progress["proposal"]["ticket"] and progress["preliminary"]["ticket"]
    again = _close(service, tmp_path, "replace")
    assert again.lines[0].startswith("2026-10 ya está cerrado en SIRE")


def test_a_bad_credential_names_what_to_check(service: Service, tmp_path: Path, lima: None) -> None:
    wrong_password = SireCredentials(SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET, RUC, "MODDATOS", "nope")
    with service.sire(credentials=wrong_password) as sire, pytest.raises(SireCredentialError) as refused:
        sire.periods()
    assert "SOL user or password" in str(refused.value) and "nope" not in str(refused.value)
    wrong_secret = SireCredentials(SIMULATOR_CLIENT_ID, "other", RUC, "MODDATOS", "MODDATOS")
    with service.sire(credentials=wrong_secret) as sire, pytest.raises(SireCredentialError) as refused:
        sire.periods()
    assert "client id or secret" in str(refused.value)
    assert "other" not in repr(sire) and "MODDATOS" not in repr(wrong_secret).replace(
        "sol_user='MODDATOS'", ""
    )


def test_an_expired_token_is_renewed_once(service: Service, lima: None) -> None:
    with service.sire() as sire:
        first = sire.token()
        assert sire.token() == first  # reused
        sire._expires = float("inf")  # the client believes it valid; SIRE does not
        service.clock.advance(3601)
        assert sire.periods()  # 401, a fresh token, the same request again
        assert sire.token() != first


def test_a_throttled_api_is_retried_after_retry_after(service: Service, lima: None) -> None:
    service.mismatches({"*": {"throttle": 2}})
    with service.sire() as sire:
        slept = len(service.clock.slept)
        assert any(p.period == "202610" for p in sire.periods())
        assert service.clock.slept[slept:] == [1.0, 1.0]
    service.mismatches({"*": {"down": 5}})
    with service.sire(retries=2) as sire, pytest.raises(SireUnavailable) as down:
        sire.periods()
    assert "HTTP 503" in str(down.value) and "continues where it stopped" in str(down.value)
    service.mismatches({})


def test_a_period_sire_has_not_opened(service: Service, lima: None) -> None:
    with service.sire() as sire:
        with pytest.raises(SirePeriodNotOpen) as closed:
            sire.check_open("2026-11")
        assert "2nd day of the next month" in str(closed.value)
        with pytest.raises(SirePeriodNotOpen):
            sire.request_proposal("202612")  # SIRE's own 422 1007


def test_a_malformed_proposal_is_a_clear_error() -> None:
    with pytest.raises(SireProposalError) as broken:
        parse_proposal(b"PK\x03\x04 not a zip")
    assert "broken ZIP" in str(broken.value)
    with pytest.raises(SireProposalError) as short:
        parse_proposal(b"Ruc|Razon Social\r\n20123456786|X|202610|\r\n")
    assert "line 2" in str(short.value)


def test_a_ticket_still_running_is_asked_again_on_the_next_run(service: Service, lima: None) -> None:
    with service.sire() as sire:
        ticket = sire.request_proposal("202610")
        state = sire.ticket("202610", ticket)
        assert state.code == "05" and state.label == "En proceso (05)"
        with pytest.raises(SireTicketTimeout) as waiting:
            sire.wait("202610", ticket, polls=1)
        assert "does not send anything again" in str(waiting.value)


def test_an_interrupted_replacement_resumes_its_upload(service: Service, tmp_path: Path, lima: None) -> None:
    """The run stops after half the file reached SUNAT: the next run asks SUNAT the offset and sends the
    rest on the same upload, then follows the same ticket (no second proposal asked, no second file)."""
    service.mismatches({})
    closes_file = tmp_path / "tenant.closes.json"

    class Interrupted(Exception):
        pass

    client = Client(service.base_url("sire-shop-b"), TOKEN_B, cache=False)
    with client, service.sire(RUC_B) as sire:
        from connector import sire as sire_module

        real = sire.resume_upload

        def half(location: str, data: bytes) -> str | None:
            sire_module.CHUNK, kept = len(data) // 2, sire_module.CHUNK
            try:
                response = sire._upload_call(
                    "PATCH",
                    location,
                    {"Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"},
                    data[: len(data) // 2],
                )
                assert response.headers["Upload-Offset"] == str(len(data) // 2)
            finally:
                sire_module.CHUNK = kept
            raise Interrupted

        sire.resume_upload = half  # type: ignore[method-assign]
        with pytest.raises(Interrupted):
            sire_close(client, "2026-10", sire, closes_file=closes_file, action="replace", now=peru_now)
        sire.resume_upload = real  # type: ignore[method-assign]
        before = SireProgress(progress_path(closes_file)).period("2026-10")
        assert before["decision"]["upload"] and "ticket" not in before["decision"]
        report = sire_close(client, "2026-10", sire, closes_file=closes_file, action="replace")
    after = SireProgress(progress_path(closes_file)).period("2026-10")
    assert after["proposal"]["ticket"] == before["proposal"]["ticket"]
    assert after["decision"]["upload"] == before["decision"]["upload"]
    assert any("se reanuda la carga ya abierta" in line for line in report.lines)
    assert report.done


def test_the_cli_closes_a_month_accepting_the_proposal(
    service: Service, tmp_path: Path, lima: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``facturador sire TENANT 2026-10 --accept`` on a third company: every ticket's states printed, the
    preliminar's summary, the close; the secrets nowhere in the output."""
    from click.testing import CliRunner

    from facturador.cli import main

    tenants = tmp_path / "tenants.toml"
    tenants.write_text(
        f'[tenants.shop]\nbase_url = "{service.base_url("sire-shop-c")}"\ntoken = "{TOKEN_C}"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    environment = {
        "SIRE_CLIENT_ID": SIMULATOR_CLIENT_ID,
        "SIRE_CLIENT_SECRET": SIMULATOR_CLIENT_SECRET,
        "SIRE_SOL_USER": "MODDATOS",
        "SIRE_SOL_PASSWORD": "MODDATOS",
        "FACTURADOR_SIRE_URL": f"{service.root}/sire",
    }
    result = CliRunner().invoke(
        main, ["sire", "shop", "2026-10", "--tenants", str(tenants), "--accept"], env=environment
    )
    assert result.exit_code == 0, result.output
    output = result.output
    assert "periodo 202610: No Presentado en SIRE" in output
    assert "(propuesta): En proceso (05)" in output and "(propuesta): Terminado (06)" in output
    assert "comparación: 4 en ambos, 0 solo en SUNAT, 0 solo en los libros, 0 con campos distintos" in output
    assert "propuesta aceptada: ticket" in output and "(aceptación): Terminado (06)" in output
    assert "(preliminar): Terminado (06)" in output and "01|3|300.00|54.00|354.00" in output
    assert "closed on" in output and "(Lima, sire)" in output
    assert SIMULATOR_CLIENT_SECRET not in output


def test_a_replacement_processed_with_errors_is_sent_again_once_corrected(
    service: Service, tmp_path: Path, lima: None
) -> None:
    """SUNAT's ticket ends «Procesado con errores»: the close stops naming the error and what to do,
    nothing is recorded closed, and the next run sends the file again (a new ticket) and closes."""
    service.mismatches({"202610": {"reject_imports": True}}, RUC_D)
    closes_file = tmp_path / "tenant.closes.json"
    client = Client(service.base_url("sire-shop-d"), TOKEN_D, cache=False)
    with client, service.sire(RUC_D) as sire:
        with pytest.raises(SireRejected) as rejected:
            sire_close(client, "2026-10", sire, closes_file=closes_file, action="replace")
        message = str(rejected.value)
        assert "with errors" in message and "110" in message and "run it again" in message
        assert MonthCloses(closes_file).record("2026-10") is None
        first = SireProgress(progress_path(closes_file)).events("2026-10")
        assert any("Procesado con errores (03)" in event["what"] for event in first)
        service.mismatches({}, RUC_D)
        report = sire_close(client, "2026-10", sire, closes_file=closes_file, action="replace")
    assert report.done and report.decision is not None and report.decision.code == "06"
    tickets = [e["what"] for e in report.events if e["what"].startswith("reemplazo enviado")]
    assert len(tickets) == 2 and tickets[0] != tickets[1]
