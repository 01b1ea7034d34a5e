"""The Issue page warns of a customer SUNAT's padrón gives as gone (BAJA, NO HABIDO): the tenant's
``services/ruc`` answers from the padrón imported into the live service, as ``facturador padron import``
does, and the warning shows under the customer before issuing."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from streamlit.testing.v1 import AppTest

from facturador.domain.exchange_rates import cached_rate, store_rates
from facturador.domain.padron import import_padron
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.dashboard.test_app import app, fill_invoice, texts
from tests.padron_file import line, ruc, write_padron

GONE = ruc("2099800002")
FINE = ruc("2099800001")


def test_the_issue_page_warns_of_a_customer_the_padron_gives_as_gone(
    tenants: Path, live: LiveService, tmp_path: Path
) -> None:
    padron = write_padron(
        tmp_path / "padron_reducido_ruc.txt",
        [
            line(GONE, "COMERCIAL DE BAJA S.A.C.", "BAJA DEFINITIVA", "NO HALLADO"),
            line(FINE, "COMERCIAL EN REGLA S.A.C."),
        ],
    )
    import_padron(live.context.engine, padron, force=True)
    at: AppTest = app()
    at.switch_page("views/issue.py").run()
    fill_invoice(at, "COMERCIAL DE BAJA S.A.C.", number=GONE)
    assert not at.exception, at.exception
    warned = texts(at.warning)
    assert "BAJA DEFINITIVA" in warned and "NO HALLADO" in warned and "Revise antes de emitirle" in warned

    fill_invoice(at, "COMERCIAL EN REGLA S.A.C.", number=FINE)
    assert "Revise antes de emitirle" not in texts(at.warning)


def test_the_issue_form_shows_sunats_rate_of_the_issue_date(tenants: Path, live: LiveService) -> None:
    today = peru_today()
    store_rates(live.context.engine, {today: (Decimal("3.371"), Decimal("3.379"))})  # kept if cached already
    cached = cached_rate(live.context.engine, today)
    assert cached is not None
    at: AppTest = app()
    at.switch_page("views/issue.py").run()
    assert "venta" not in texts(at.caption)
    at.selectbox(key="issue_currency").set_value("USD").run()
    assert not at.exception, at.exception
    shown = texts(at.caption)
    assert (
        f"SUNAT {cached.published.strftime('%d/%m/%Y')}" in shown
        and f"venta {cached.sale.normalize():f}" in shown
    )
