"""What the analyst side reads from the service over real HTTP: the idempotency key on issuing, list rows
with their details (lines, instalments), the note's affected document and its date, voided PDFs with
their mark, the sales register of a month through the connector and the CLI, and the CDR check."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis.receivables import open_instalments
from analysis.register import sales_register
from connector import Client
from connector.builders import CreditNote, Customer, Instalment, Invoice, Line
from connector.consult import check_document
from connector.documents import new_idempotency_key
from facturador.cli import main
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.connector.standin import Answer, StandIn
from tests.samples.bodies import invoice_body
from tests.samples.tenants import ACME, ACME_TOKEN
from tests.shops import new_shop

CUSTOMER = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.")


def test_issue_sends_the_idempotency_key(standin: StandIn) -> None:
    answer = {
        "success": True,
        "data": {"number": "F001-9", "external_id": "abc", "state_type_id": "05"},
        "was_duplicate": True,
        "links": {},
        "response": {"code": "0", "description": "ok"},
    }
    standin.on("POST", "/api/documents", Answer(200, answer))
    key = new_idempotency_key()
    with Client(standin.root, "token-0123456789", cache=False) as client:
        result = client.documents.issue(invoice_body(), idempotency_key=key)
        client.documents.issue(invoice_body())
    first, second = (hit for hit in standin.hits if hit[0] == "POST")
    assert json.loads(first[3])["offline_id"] == key and "offline_id" not in json.loads(second[3])
    assert result.was_duplicate  # the service said it answered an earlier request
    assert new_idempotency_key() != key


def test_a_retry_with_the_same_key_gives_the_same_document(live: LiveService, client: Client) -> None:
    key = new_idempotency_key()
    invoice = Invoice(customer=CUSTOMER, lines=[Line("Reintento", 1, unit_price=118)])
    first = client.documents.issue(invoice, idempotency_key=key)
    again = client.documents.issue(invoice, idempotency_key=key)
    assert again.external_id == first.external_id and again.number == first.number and again.was_duplicate


def test_details_lines_instalments_and_the_affected_date(client: Client) -> None:
    today = peru_today()
    credit = client.documents.issue(
        Invoice(customer=CUSTOMER, lines=[Line("Servicio mensual", 2, unit_value=500)]),
        form_values={
            "instalments.rows": [{"date": (today + dt.timedelta(days=30)).isoformat(), "amount": 1180}]
        },
    )
    note = client.documents.issue(
        CreditNote(
            customer=CUSTOMER,
            lines=[Line("Servicio mensual", 1, unit_value=500)],
            affected_external_id=credit.external_id,
            note_type="07",
            reason="Devolución parcial",
        )
    )
    plain = client.documents.list(today, today)
    assert not plain.has_details or len(plain) == 0
    detailed = client.documents.list(today, today, details=True)
    assert detailed.has_details
    rows = {row["number"]: row for row in detailed.rows}
    credit_row = rows[credit.number]
    assert credit_row["payment_condition_id"] == "02"
    assert credit_row["fee"] == [
        {"date": (today + dt.timedelta(days=30)).isoformat(), "currency_type_id": "PEN", "amount": 1180.0}
    ]
    (item,) = credit_row["items"]
    assert (item["description"], item["quantity"], item["total_value"], item["total"]) == (
        "Servicio mensual",
        2,
        1000.0,
        1180.0,
    )
    note_record = next(r for r in detailed if r.number == note.number)
    assert note_record.affected is not None and note_record.affected.full_number == credit.number
    assert note_record.affected.date_of_issue == today
    owed, without_terms = open_instalments(detailed.rows)
    mine = [i for i in owed if i.document == credit.number]
    assert [i.amount for i in mine] == [1180 - 590] and without_terms == 0  # less the credit note


def test_a_note_13_moves_the_instalments_receivables_show(client: Client) -> None:
    """A credit note of type 13 gives the factura new payment dates: the receivables follow the latest
    one, and a later return still lowers the last instalment."""
    today = peru_today()
    credit = client.documents.issue(
        Invoice(
            customer=CUSTOMER,
            lines=[Line("Termo 1 L", 2, unit_value=50)],
            instalments=[
                Instalment(today + dt.timedelta(days=30), 59),
                Instalment(today + dt.timedelta(days=60), 59),
            ],
        )
    )

    def adjustment(days: int) -> CreditNote:
        return CreditNote(
            customer=CUSTOMER,
            lines=[Line("Ajuste de fechas de pago", 1, unit_value=0, unit="ZZ")],
            affected_external_id=credit.external_id,
            note_type="13",
            reason="Nuevas fechas de pago",
            instalments=[
                Instalment(today + dt.timedelta(days=days), 59),
                Instalment(today + dt.timedelta(days=2 * days), 59),
            ],
        )

    client.documents.issue(adjustment(45))
    client.documents.issue(adjustment(50))
    client.documents.issue(
        CreditNote(
            customer=CUSTOMER,
            lines=[Line("Termo 1 L", 1, unit_value=50)],
            affected_external_id=credit.external_id,
            note_type="07",
            reason="Devolución de un termo",
        )
    )
    owed, _ = open_instalments(client.documents.list(today, today, details=True, fresh=True).rows)
    mine = [(i.due_date, i.amount) for i in owed if i.document == credit.number]
    assert mine == [(today + dt.timedelta(days=50), 59)]  # the second, 59, taken by the return of 59.00


def test_a_voided_documents_pdf_says_anulado(live: LiveService) -> None:
    client = Client(live.base_url(ACME), ACME_TOKEN, cache=False)
    result = client.documents.issue(
        Invoice(customer=CUSTOMER, lines=[Line("Para anular", 1, unit_price=118)])
    )
    plain = client.documents.download_pdf(result.external_id)
    client.documents.update_status(result.external_id, "11")
    marked = client.documents.download_pdf(result.external_id)
    assert marked.startswith(b"%PDF") and marked != plain
    from tests.facturador.render.pdf_probes import pdf_text

    assert "(ANULADO) Tj" in pdf_text(marked) and "ANULADO" not in pdf_text(plain)
    client.documents.update_status(result.external_id, "05")
    assert "ANULADO" not in pdf_text(client.documents.download_pdf(result.external_id))


def test_sales_register_of_a_tenant_and_through_the_cli(
    live: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a tenant of its own: acme's month holds whatever other test files did to it before (voided
    and annulled documents make adjustment lines), and pytest-xdist runs files in any order."""
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))  # the closes the CLI reads
    shop = new_shop(live, "registro")
    with shop.client() as client:
        client.documents.issue(Invoice(customer=CUSTOMER, lines=[Line("Registro", 1, unit_price=118)]))
        today = peru_today()
        register = sales_register(client, today, folder=tmp_path)
    assert register.ruc == shop.ruc and register.name
    assert register.ple_name == f"LE{shop.ruc}{today:%Y%m}00140100001111.TXT"
    assert (tmp_path / register.ple_name).read_bytes().decode("ascii") == register.ple_text()
    first = register.ple_rows()[0]
    assert len(first) == 35 and first[0] == f"{today:%Y%m}00"
    tenants = tmp_path / "tenants.toml"
    tenants.write_text(
        f'[tenants.registro]\nbase_url = "{shop.base_url}"\ntoken = "{shop.token}"\ncache = false\n'
    )
    out = tmp_path / "cli"
    done = CliRunner().invoke(
        main, ["register", "registro", f"{today:%Y-%m}", "--tenants", str(tenants), "--folder", str(out)]
    )
    assert done.exit_code == 0, done.output
    assert re.search(
        r"\d+ PLE lines, \d+ RVIE lines, 0 adjustment lines .* total S/ [\d,]+\.\d{2}", done.output
    )
    assert sorted(p.suffix for p in out.iterdir()) == [".TXT", ".xlsx", ".zip"]
    more = tmp_path / "more"
    asked = ["--format", "ple-simplified", "--format", "adjustments", "--format", "adjustments-simplified"]
    done = CliRunner().invoke(
        main,
        ["register", "registro", f"{today:%Y-%m}", "--tenants", str(tenants), "--folder", str(more), *asked],
    )
    assert done.exit_code == 0, done.output
    simplified = more / register.ple_simplified_name
    assert str(simplified) in done.output and simplified.name.endswith("00140200001111.TXT")
    assert all(len(line.split("|")) == 27 for line in simplified.read_text("ascii").splitlines())
    zips = sorted(p.name for p in more.glob("*.zip"))
    assert zips == [
        f"LE{shop.ruc}{today:%Y%m}0014040004101201.zip",
        f"LE{shop.ruc}{today:%Y%m}0014040005101201.zip",
    ]
    bad = CliRunner().invoke(main, ["register", "nobody", "2026-01", "--tenants", str(tenants)])
    assert bad.exit_code != 0 and "no tenant 'nobody'" in bad.output
    wrong = CliRunner().invoke(main, ["register", "registro", "enero", "--tenants", str(tenants)])
    assert wrong.exit_code != 0 and "YYYY-MM" in wrong.output


def test_the_cli_closes_a_month_once(
    live: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``facturador register --close`` records the month closed (beside the tenant's store, in the
    store folder); a later close keeps the first, and a month that has not ended is refused."""
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))
    shop = new_shop(live, "cierre")
    tenants = tmp_path / "tenants.toml"
    tenants.write_text(
        f'[tenants.cierre]\nbase_url = "{shop.base_url}"\ntoken = "{shop.token}"\ncache = false\n'
    )
    base = ["register", "cierre", "2026-01", "--tenants", str(tenants), "--folder", str(tmp_path / "out")]
    done = CliRunner().invoke(main, base)
    assert done.exit_code == 0, done.output
    assert "closed on" not in done.output
    first = CliRunner().invoke(main, [*base, "--close"])
    assert first.exit_code == 0, first.output
    said = re.search(r"closed on (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) \(Lima, register\)", first.output)
    assert said, first.output
    from connector.closes import MonthCloses
    from connector.store import closes_path

    kept = MonthCloses(closes_path(shop.base_url, tmp_path / "stores"))
    assert list(kept) == ["2026-01"] and kept.record("2026-01").source == "register"  # type: ignore[union-attr]
    again = CliRunner().invoke(main, [*base, "--close"])
    assert again.exit_code == 0 and said.group(0) in again.output  # the first close stays
    today = peru_today()
    early = CliRunner().invoke(main, [*base[:2], f"{today:%Y-%m}", *base[3:], "--close"])
    assert early.exit_code != 0 and "has not ended" in early.output


def test_check_against_the_authority(client: Client) -> None:
    sent = client.documents.issue(Invoice(customer=CUSTOMER, lines=[Line("Consulta", 1, unit_price=118)]))
    unsent = client.documents.issue(
        Invoice(customer=CUSTOMER, lines=[Line("Sin enviar", 1, unit_price=118)], send=False)
    )
    today = peru_today()
    records = {r.number: r for r in client.documents.list(today, today, fresh=True)}
    ok = check_document(client, records[sent.number])
    assert ok.consistent and ok.cdr is not None and ok.cdr.code == "0" and ok.cdr.document == sent.number
    missing = check_document(client, records[unsent.number])
    assert missing.consistent and missing.cdr is None and "Sin CDR" in missing.message
    client.documents.update_status(sent.external_id, "09")  # listed as rejected, the CDR says accepted
    wrong = check_document(
        client, next(r for r in client.documents.list(today, today, fresh=True) if r.number == sent.number)
    )
    assert not wrong.consistent and "No coincide" in wrong.message
    client.documents.update_status(sent.external_id, "05")


def test_dashboard_refuses_an_open_address_without_a_login(tmp_path: Path) -> None:
    tenants = tmp_path / "tenants.toml"
    tenants.write_text('[tenants.acme]\nbase_url = "http://127.0.0.1:9/t/acme"\ntoken = "x"\n')
    done = CliRunner().invoke(main, ["dashboard", "--tenants", str(tenants), "--host", "0.0.0.0"])
    assert done.exit_code != 0 and "without a login" in done.output
    done = CliRunner().invoke(
        main, ["dashboard-password", "--tenants", str(tenants)], input="secreto\nsecreto\n"
    )
    assert done.exit_code == 0, done.output
    text = tenants.read_text()
    assert "[tenants.acme]" in text and 'password_hash = "pbkdf2_sha256$' in text and "secreto" not in text
    from dashboard.auth import password_hash, verify_password

    stored = password_hash(tenants)
    assert stored is not None and verify_password("secreto", stored)
