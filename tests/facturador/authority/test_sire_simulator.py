"""The SIRE RVIE simulator as ``facturador sunat`` serves it (a child process on a loopback port, at
``/sire``), talked to with :class:`connector.sire.SireClient`: a tenant's own SOL user gets a token,
periods, an empty proposal, and every malformed import answered as SUNAT answers it (1044, 1348, a
ticket «Procesado con errores» with its report, 1024 for a name sent before, 2293 before a decision)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from connector.sire import (
    SireClient,
    SireCredentialError,
    SireCredentials,
    SireRejected,
    parse_proposal,
)
from facturador.authority.sire.simulator import SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET
from facturador.config import Settings
from tests.conftest import free_port
from tests.nodes import SOL_PASSWORD, SOL_USER, Process, Tenant, new_tenant, start, wait_until_up

NOW = "2026-11-03T10:00:00-05:00"


@pytest.fixture
def sunat(fresh_settings: Settings, tmp_path: Path) -> Iterator[tuple[Process, Tenant]]:
    tenant = new_tenant(fresh_settings, "sire", sunat_url="http://127.0.0.1:9/unused")
    child = start(
        fresh_settings,
        tmp_path / "sunat.log",
        "sunat",
        port=free_port(),
        env={"FACTURADOR_CLOCK": NOW, "FACTURADOR_SIRE_TICKET_DELAY": "0"},
    )
    try:
        wait_until_up(child, "/ol-ti-itcpfegem-beta/billService?wsdl")
        yield child, tenant
    finally:
        child.stop()


def _client(child: Process, ruc: str, user: str = SOL_USER, password: str = SOL_PASSWORD) -> SireClient:
    return SireClient(
        SireCredentials(SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET, ruc, user, password),
        token_base=f"{child.root}/sire/v1",
        api_base=f"{child.root}/sire/v1/contribuyente/migeigv/libros",
        sleep=lambda _seconds: None,
    )


def _zip(name: str, text: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(name, text)
    return buffer.getvalue()


def test_facturador_sunat_serves_sire_beside_soap(sunat: tuple[Process, Tenant]) -> None:
    child, tenant = sunat
    assert "/sire" in child.output()
    with _client(child, tenant.ruc) as sire:
        periods = [p.period for p in sire.periods()]
        assert periods[0] == "202610" and "202301" in periods and "202611" not in periods
        ticket = sire.request_proposal("2026-10")
        state = sire.wait("202610", ticket, interval=0)
        assert state.code == "06" and state.files
        assert parse_proposal(sire.download("202610", state)) == []  # nothing issued: an empty proposal
    with _client(child, tenant.ruc, password="wrong") as sire, pytest.raises(SireCredentialError):
        sire.token()
    with _client(child, tenant.ruc, user="MODDATOS", password="MODDATOS") as sire:
        assert sire.token()
    no_token = httpx.get(
        f"{child.root}/sire/v1/contribuyente/migeigv/libros/rvierce/padron/web/omisos/140000/periodos"
    )
    assert no_token.status_code == 401 and no_token.json()["errors"][0]["cod"] == "401"


def test_malformed_imports_are_refused_as_sunat_refuses_them(sunat: tuple[Process, Tenant]) -> None:
    child, tenant = sunat
    ruc = tenant.ruc
    good = f"LE{ruc}20261000140400021112.zip"
    with _client(child, ruc) as sire:
        with pytest.raises(SireRejected) as wrong_name:
            sire.upload("202610", f"LE{ruc}20260900140400021112.zip", b"PK")
        assert wrong_name.value.code == "1044"
        with pytest.raises(SireRejected) as not_zip:
            sire.upload("202610", good[:-4] + ".txt", b"x")
        assert not_zip.value.code == "1348"
        with pytest.raises(SireRejected) as early:
            sire.register_preliminary("202610")
        assert early.value.code == "2293"
        # the right name, a broken content: taken, then processed with errors and a report
        ticket = sire.upload("202610", good, b"not a zip at all")
        state = sire.wait("202610", ticket, interval=0)
        assert state.failed and state.label == "Procesado con errores (03)" and "zip" in state.detail
        with zipfile.ZipFile(io.BytesIO(sire.download("202610", state))) as report:
            assert "1044" in report.read(report.namelist()[0]).decode()
        # a row that is not Anexo 3 (field count): errors again
        short = _zip(good[:-4] + ".TXT", f"{ruc}|X|202610|\r\n")
        state = sire.wait("202610", sire.upload("202610", good, short), interval=0)
        assert state.failed and "estructura" in state.detail
        with zipfile.ZipFile(io.BytesIO(sire.download("202610", state))) as report:
            assert "453" in report.read(report.namelist()[0]).decode()
        # a good file replaces the proposal; the same name again is 1024
        line = (
            f"{ruc}|SIRE S.A.C.|202610||30/10/2026||01|F001|1||6|20487654320|CLIENTE|0.00|100.00|0.00|18.00|"
            "0.00|0.00|0.00|0.00|0.00|0.00|0.00|0.00|118.00|PEN|||||||\r\n"
        )
        state = sire.wait("202610", sire.upload("202610", good, _zip(good[:-4] + ".TXT", line)), interval=0)
        assert state.code == "06", state.detail
        with pytest.raises(SireRejected) as again:
            sire.upload("202610", good, _zip(good[:-4] + ".TXT", line))
        assert again.value.code == "1024"
        state = sire.wait("202610", sire.register_preliminary("202610"), interval=0)
        assert state.code == "06"
        assert "01|1|100.00|18.00|118.00" in sire.summary("202610").decode()
        assert [p.state for p in sire.periods() if p.period == "202610"] == ["Presentado"]


def _row(ruc: str, number: str, day: str, created: str) -> dict[str, object]:
    series, correlative = number.split("-")
    return {
        "external_id": f"ext-{number}",
        "id": int(correlative),
        "number": number,
        "series": series,
        "correlative": int(correlative),
        "date_of_issue": day,
        "document_type_id": "01",
        "state_type_id": "05",
        "currency_type_id": "PEN",
        "exchange_rate_sale": "1.000",
        "customer_identity_document_type_id": "6",
        "customer_number": "20487654320",
        "customer_name": "CLIENTE S.A.",
        "has_cdr": True,
        "created_at": created,
        "updated_at": created,
        "total_taxed": "100.00",
        "total_igv": "18.00",
        "total": "118.00",
    }


def test_a_close_with_adjustments_of_an_earlier_period(sunat: tuple[Process, Tenant], tmp_path: Path) -> None:
    """October's register holds a September factura that arrived after September was closed (state 8):
    the close replaces October's proposal with October's own line and sends the September line as an
    adjustment (Anexo 5.1, ``…14040004…``), each ticket followed, before the month is recorded closed."""
    import datetime as dt

    from analysis.register import SalesRegister
    from analysis.sire import close_register
    from connector.closes import MonthCloses
    from connector.sire import SireProgress

    child, tenant = sunat
    closes = MonthCloses(tmp_path / "t.closes.json")
    closes.close("2026-09", dt.datetime(2026, 10, 1, 9, 0), source="manual")
    rows = [
        _row(tenant.ruc, "F001-7", "2026-09-30", "2026-10-03 10:00:00"),  # arrived after the close: state 8
        _row(tenant.ruc, "F001-8", "2026-10-15", "2026-10-15 10:00:00"),
    ]
    register = SalesRegister.build(rows, "2026-10", ruc=tenant.ruc, name="SIRE S.A.C.", closes=closes)
    assert len(register.adjustment_rows()) == 1 and len(register.sire_rows()) == 1
    progress = SireProgress(tmp_path / "t.sire.json")
    with _client(child, tenant.ruc) as sire:
        report = close_register(
            register,
            sire,
            action="replace",
            progress=progress,
            closes=closes,
            adjustments=True,
            interval=0,
            now=lambda: dt.datetime(2026, 11, 3, 10, 0),
        )
    assert report.done
    sent = progress.period("2026-10")["adjustments"]
    assert sent["file"] == f"LE{tenant.ruc}20261000140400041112" + "01.zip" and sent["lines"] == 1
    assert any("(ajustes): Terminado (06)" in line for line in report.lines)
    assert "01|1|100.00|18.00|118.00" in report.summary  # the preliminar: October's own line only


def test_an_acceptance_sent_by_a_run_that_stopped_is_followed_not_sent_again(
    sunat: tuple[Process, Tenant], tmp_path: Path
) -> None:
    """A run accepted the proposal and stopped before it kept the ticket: SUNAT answers the next
    acceptance 1008, and the close finds the first acceptance's ticket in the listing and follows it."""
    import datetime as dt

    from analysis.register import SalesRegister
    from analysis.sire import close_register
    from connector.closes import MonthCloses
    from connector.sire import SireProgress

    child, tenant = sunat
    register = SalesRegister.build([], "2026-10", ruc=tenant.ruc, name="SIRE S.A.C.")
    closes = MonthCloses(tmp_path / "t.closes.json")
    with _client(child, tenant.ruc) as sire:
        first = sire.accept("202610")  # the stopped run's acceptance: its ticket never recorded
        report = close_register(
            register,
            sire,
            action="accept",
            progress=SireProgress(tmp_path / "t.sire.json"),
            closes=closes,
            interval=0,
            now=lambda: dt.datetime(2026, 11, 3, 10, 0),
        )
    assert report.done and report.decision is not None and report.decision.ticket == first
    assert [t.process for t in [report.decision]] == ["2"]


def test_the_workers_of_a_service_share_the_books_and_tickets(tmp_path: Path) -> None:
    """``facturador serve --workers 2`` runs a simulator per process: a ticket asked of one is answered by
    the other, and numbers are not given twice (the state file under a lock, :meth:`SireSimulator.shared`)."""
    from datetime import date

    from facturador.authority.sire.simulator import SireSimulator

    state = tmp_path / "authority" / "sire-state.json"

    def worker() -> SireSimulator:
        return SireSimulator(
            lambda _ruc, _period: [], clock=lambda: 0.0, today=lambda: date(2026, 11, 3), state=state
        )

    first, second = worker(), worker()
    with first.shared():
        asked = first.request_proposal("20123456786", "202610", {"codTipoArchivo": "0"})
    with second.shared():
        found = second.tickets("20123456786", {"perIni": "202610", "perFin": "202610"})
        again = second.request_proposal("20123456786", "202610", {"codTipoArchivo": "0"})
    assert [row["numTicket"] for row in found["registros"]] == [asked["numTicket"]]
    assert again["numTicket"] != asked["numTicket"]
