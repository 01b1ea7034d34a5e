"""The accountant's portfolio over several companies of the live service (and one that is not there): each
company's close, its pending work and SUNAT's due date by its RUC, sorted by what is due first; a company
that cannot be reached says so and the others show."""

from __future__ import annotations

import datetime as dt
import threading
import time
from pathlib import Path

import pytest

from analysis.portfolio import (
    CompanyRow,
    Portfolio,
    SireProgress,
    Sources,
    portfolio,
    sire_close_record,
)
from analysis.register import Period
from connector.builders import Customer, Invoice, Line, Receipt
from connector.closes import MonthCloses
from connector.config import TenantConfig
from connector.sire import SireProgress as SireCloseRecord
from connector.sire import progress_path
from connector.store import closes_path
from sunat.calendar import peru_now, peru_today
from sunat.cronograma import ScheduleError, due_date
from tests.conftest import LiveService, free_port
from tests.shops import Shop, new_shop


def expected_due(ruc: str, period: Period) -> dt.date | None:
    try:
        return due_date(ruc, (period.year, period.month)).date
    except ScheduleError:  # a year whose cronograma is not in sunat/data yet
        return None


def tenant_table(slug: str, base_url: str, token: str, **more: str) -> str:
    lines = [f"[tenants.{slug}]", f'name = "{slug.upper()} S.A.C."', f'base_url = "{base_url}"']
    lines += [f'token = "{token}"', "cache = false"] + [f'{key} = "{value}"' for key, value in more.items()]
    return "\n".join(lines) + "\n"


@pytest.fixture(autouse=True)
def _stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))  # where the closes are kept


def issue(shop: Shop, *, facturas: int = 0, boletas: int = 0) -> None:
    with shop.client() as client:
        for _ in range(facturas):
            client.documents.issue(
                Invoice(
                    customer=Customer.ruc("20601030013", "EMPRESA XYZ S.A.C."),
                    lines=[Line("Asesoría", 1, 100)],
                )
            )
        for _ in range(boletas):
            client.documents.issue(
                Receipt(customer=Customer.dni("12345678", "ANA"), lines=[Line("Pan", 2, 5)])
            )


def test_five_companies_one_down_one_with_a_wrong_token(live: LiveService, tmp_path: Path) -> None:
    pending = new_shop(live, "pfa", send_auto=False)  # facturas left without their CDR
    sent = new_shop(live, "pfb")
    quiet = new_shop(live, "pfc")
    issue(pending, facturas=1, boletas=2)
    issue(sent, facturas=1)
    down = f"http://127.0.0.1:{free_port()}/t/gone"  # nothing listens there: connection refused
    path = tmp_path / "tenants.toml"
    path.write_text(
        tenant_table("pfa", pending.base_url, pending.token)
        + tenant_table("pfb", sent.base_url, sent.token)
        + tenant_table("pfc", quiet.base_url, quiet.token, ruc=quiet.ruc)
        + tenant_table("gone", down, "x" * 40, ruc="20100066600")
        + tenant_table("wrong", quiet.base_url, "not-the-token-0123456789-abcdefghijklmn"),
        encoding="utf-8",
    )
    today = peru_today()
    month = Period.of(today)
    later = today + dt.timedelta(days=1)  # the boletas issued today are a past day's then
    heard: list[tuple[int, int, str]] = []
    lock = threading.Lock()

    def progress(done: int, total: int, row: CompanyRow) -> None:
        with lock:
            heard.append((done, total, row.slug))

    found = portfolio(month, path, today=later, workers=2, progress=progress, timeout=10)

    assert isinstance(found, Portfolio) and found.period == month
    assert sorted(slug for _, _, slug in heard) == ["gone", "pfa", "pfb", "pfc", "wrong"]
    assert [done for done, _, _ in heard] == [1, 2, 3, 4, 5] and {total for _, total, _ in heard} == {5}
    rows = {row.slug: row for row in found.rows}
    assert [row.sort_key() for row in found.rows] == sorted(row.sort_key() for row in found.rows)

    gone = rows["gone"]
    assert gone.problem == "unreachable" and down in gone.message and gone.pending is None
    assert gone.due is not None or expected_due("20100066600", month) is None  # its RUC is in the file
    wrong = rows["wrong"]
    assert wrong.problem == "unauthorized" and "token" in wrong.message
    assert {row.slug for row in found.unreachable} == {"gone", "wrong"}

    a = rows["pfa"]
    assert a.reachable and a.documents == 3 and a.ruc == pending.ruc  # the RUC read from its documents
    assert a.pending is not None and a.close is not None
    assert (a.pending.boletas_undeclared, a.pending.facturas_without_cdr) == (2, 1)
    assert a.pending.boletas_late == 0  # a day old: within the summary's 7 days
    assert a.pending.validity_disagreements is None  # no sweep source yet: not available
    assert isinstance(a.pending.certificate_days_left, int)  # this service tells its certificate
    assert a.pending.needs_a_person == 0
    assert a.close.sire is None and a.close.closed is None and not a.close.register_ready
    assert a.close.step == ("Registro pendiente" if later > month.end else "Mes en curso")
    assert (a.due.date if a.due else None) == expected_due(pending.ruc, month)

    b = rows["pfb"]
    assert b.pending is not None and (b.pending.boletas_undeclared, b.pending.facturas_without_cdr) == (0, 0)
    assert b.ruc == sent.ruc and b.documents == 1
    c = rows["pfc"]
    assert c.documents == 0 and c.ruc == quiet.ruc  # no documents: the RUC of the tenants file
    assert (c.due.date if c.due else None) == expected_due(quiet.ruc, month)

    table = {line["Empresa"]: line for line in found.table()}
    assert (
        table["GONE S.A.C."]["Conexión"].startswith("⚠ El servicio no responde")
        and table["PFA S.A.C."]["Conexión"] == "ok"
    )
    assert table["PFA S.A.C."]["Diferencias de validez"] == "no disponible"
    assert table["PFA S.A.C."]["Facturas sin CDR"] == 1


def test_the_close_from_month_closes_and_sire_and_validity_sources(live: LiveService, tmp_path: Path) -> None:
    closed_shop = new_shop(live, "pfd")
    compared_shop = new_shop(live, "pfe")
    today = peru_today()
    last_month = Period.of(today.replace(day=1) - dt.timedelta(days=1))
    tenants = [
        TenantConfig("pfd", closed_shop.base_url, token=closed_shop.token, ruc=closed_shop.ruc, name="PFD"),
        TenantConfig(
            "pfe", compared_shop.base_url, token=compared_shop.token, ruc=compared_shop.ruc, name="PFE"
        ),
    ]
    MonthCloses(closes_path(closed_shop.base_url)).close(
        (last_month.year, last_month.month), peru_now(), source="sire"
    )
    asked: list[tuple[str, str]] = []

    def sire(tenant: TenantConfig, period: Period) -> SireProgress | None:
        asked.append((tenant.slug, period.code))
        return SireProgress(proposal_compared=True, differences_left=3) if tenant.slug == "pfe" else None

    def validity(tenant: TenantConfig, period: Period) -> int | None:
        return 2 if tenant.slug == "pfe" else None

    found = portfolio(last_month, tenants, sources=Sources(sire=(sire,), validity=(validity,)))
    rows = {row.slug: row for row in found.rows}
    d, e = rows["pfd"], rows["pfe"]
    assert sorted(asked) == [("pfd", last_month.code), ("pfe", last_month.code)]
    assert d.close is not None and d.close.month_ended and d.close.register_ready  # nothing pending in it
    assert d.close.step == f"Cerrado en SIRE el {peru_now():%d/%m/%Y}"
    assert e.close is not None and e.close.step == "Propuesta comparada (3 diferencias por explicar)"
    assert e.pending is not None and e.pending.validity_disagreements == 2
    assert d.pending is not None and d.pending.validity_disagreements is None
    assert SireProgress(sent="reemplazo").sent == "reemplazo"


def test_the_sire_close_record_answers_the_sire_column(tmp_path: Path) -> None:
    """What ``facturador sire`` keeps beside the closes file is the row's SIRE progress: compared with
    three differences, the replacement sent, the preliminar done once the month closed."""
    tenant = TenantConfig("pfs", "http://127.0.0.1:9/t/pfs", token="x" * 20, ruc="20100066603", name="PFS")
    october = Period(2026, 10)
    assert sire_close_record(tenant, october) is None  # no close started
    record = SireCloseRecord(progress_path(closes_path(tenant.base_url)))
    at = dt.datetime(2026, 11, 5, 10, 30)
    record.update("2026-10", "comparison", {"only_in_proposal": 1, "only_ours": 1, "different": 1}, "x", at)
    found = sire_close_record(tenant, october)
    assert found == SireProgress(proposal_compared=True, differences_left=3)
    record.update(
        "2026-10", "decision", {"action": "replace", "ticket": "7", "sent_at": at.isoformat()}, "x", at
    )
    record.update("2026-10", "closed", {"at": at.isoformat()}, "x", at)
    found = sire_close_record(tenant, october)
    assert found is not None and (found.sent, found.sent_at, found.preliminary) == ("reemplazo", at, True)
    assert Sources.registered().sire_progress(tenant, october) == found
    assert sire_close_record(tenant, Period(2026, 9)) is None


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="YYYY-MM"):
        portfolio("noviembre", [])
    with pytest.raises(ValueError, match="workers"):
        portfolio("2026-11", [], workers=0)
    empty = portfolio("2026-11", [])
    assert empty.rows == [] and empty.table() == []


def test_the_command(live: LiveService, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from facturador.cli import main

    shop = new_shop(live, "pfg", send_auto=False)
    issue(shop, facturas=1)
    path = tmp_path / "tenants.toml"
    path.write_text(
        tenant_table("pfg", shop.base_url, shop.token)
        + tenant_table("gone", f"http://127.0.0.1:{free_port()}/t/gone", "x" * 40, ruc="20100066600"),
        encoding="utf-8",
    )
    month = f"{peru_today():%Y-%m}"
    done = CliRunner().invoke(main, ["portfolio", month, "--tenants", str(path), "--workers", "2"])
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"Cartera de empresas, periodo {month[5:]}/{month[:4]}")
    gone = next(line for line in lines if "GONE S.A.C." in line)
    assert "⚠ El servicio no responde en http://127.0.0.1:" in gone and "20100066600" in gone
    mine = next(line for line in lines if "PFG S.A.C." in line)
    assert shop.ruc in mine and mine.split()[-3] == "1"  # one factura without its CDR
    assert lines[-1].startswith("2 empresas en") and lines[-1].endswith("; 1 sin respuesta")
    assert "[2/2]" in done.stderr and "unreachable" in done.stderr

    wrong = CliRunner().invoke(main, ["portfolio", "noviembre", "--tenants", str(path)])
    assert wrong.exit_code != 0 and "YYYY-MM" in wrong.output
    missing = CliRunner().invoke(main, ["portfolio", month, "--tenants", str(tmp_path / "none.toml")])
    assert missing.exit_code != 0 and "No tenants file" in missing.output


def test_a_company_that_never_answers_costs_one_timeout(live: LiveService) -> None:
    """A host that takes the connection and never answers (the kernel accepts it; nobody reads) is
    reported after one timeout, not after the connector's retries, and the other company shows."""
    import socket

    shop = new_shop(live, "pfh")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        tenants = [
            TenantConfig(
                "hangs", f"http://127.0.0.1:{port}/t/x", token="x" * 40, ruc="20100066600", timeout=1.0
            ),
            TenantConfig("pfh", shop.base_url, token=shop.token, name="PFH", timeout=60),
        ]
        started = time.perf_counter()
        found = portfolio(Period.of(peru_today()), tenants)  # each with the tenants file's timeout
        took = time.perf_counter() - started
    rows = {row.slug: row for row in found.rows}
    assert rows["hangs"].problem == "unreachable" and rows["hangs"].seconds < 3, rows[
        "hangs"
    ]  # retried: 3 s and more
    assert rows["pfh"].reachable and took < 30
