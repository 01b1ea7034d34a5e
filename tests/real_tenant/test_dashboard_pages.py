"""Every dashboard page against the stand-ins of the three real code bases (AppTest, real HTTP on
loopback): each page works, or says in one sentence what the tenant does not offer; the figures match
the tenant's documents to the cent."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import APP_PATH
from sunat.calendar import peru_today
from sunat.money import round2
from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_app import confirm, texts
from tests.real_tenant.seed import CUSTOMERS, SUPPLIERS, seed
from tests.real_tenant.server import StandIn, running, stand_in
from tests.real_tenant.variants import VARIANTS

PAGES = (
    "views/home.py",
    "views/documents.py",
    "views/periods.py",
    "views/search.py",
    "views/register.py",
    "views/receivables.py",
    "views/issue.py",
    "views/summaries.py",
    "views/void.py",
    "views/tickets.py",
    "views/withholding.py",
    "views/dispatches.py",
    "views/customers.py",
    "views/products.py",
    "views/sale_notes.py",
    "views/commerce.py",
)
#: What a page must never show on a real tenant: the raw 404 of a missing route, or an empty list
#: where the tenant simply has no such list.
NEVER = ("No se encontró la URL especificada", "No hay guías en esas fechas", "Traceback")


@pytest.fixture(autouse=True)
def _loopback_address() -> Iterator[None]:
    """AppTest runs the app in this process, as a dashboard listening on 127.0.0.1 would."""
    from streamlit import config

    previous = config.get_option("server.address")
    config.set_option("server.address", "127.0.0.1")
    yield
    config.set_option("server.address", previous)


@pytest.fixture(autouse=True)
def _clean_streamlit_caches() -> Iterator[None]:
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture(params=sorted(VARIANTS))
def tenant(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[StandIn]:
    """A seeded stand-in of each variant, and the dashboard's tenants file pointing at it."""
    standin = stand_in(VARIANTS[request.param], limit=100_000)
    seed(standin.tenant)
    with running(standin):
        path = write_tenants(
            tmp_path / "tenants.toml", standin.root, standin.token, name="COMERCIAL REAL S.A.C."
        )
        monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
        yield standin


def page(path: str) -> AppTest:
    at = AppTest.from_file(str(APP_PATH), default_timeout=60)
    at.run()
    at.switch_page(path).run()
    assert not at.exception, at.exception
    return at


def everything(at: AppTest) -> str:
    return "\n".join(texts(getattr(at, kind)) for kind in ("error", "warning", "info", "caption", "markdown"))


@pytest.mark.slow
def test_every_page_works_or_says_what_the_tenant_lacks(tenant: StandIn) -> None:
    for path in PAGES:
        at = page(path)
        shown = everything(at)
        assert not [n for n in NEVER if n in shown], (path, shown)
        assert not at.error or path == "views/home.py", (path, texts(at.error))  # home's alerts are errors
    at = page("views/withholding.py")
    assert "Esta empresa no ofrece la lista de sus retenciones por su API." in texts(at.info)
    at = page("views/dispatches.py")
    assert "Esta empresa no ofrece la lista de sus guías de remisión por su API." in texts(at.info)
    at = page("views/tickets.py")
    assert "Esta empresa no lista sus resúmenes" in texts(at.info)
    at = page("views/home.py")
    assert "no se revisaron sus tickets.**" in texts(at.info)  # one period, not two


def _total(tenant: StandIn, start: dt.date, end: dt.date) -> Decimal:
    """The importe total in soles of the documents of ``start``..``end`` as an accountant adds them:
    credit notes subtract, each dollar amount converted at its document's rate and rounded; documents
    whose rate the tenant does not list (pro5) stay apart."""
    expected = Decimal(0)
    for document in tenant.tenant.documents:
        if not start <= document.date_of_issue <= end:
            continue
        if document.currency != "PEN" and not tenant.variant.list_exchange_rate:
            continue
        sign = -1 if document.document_type_id == "07" else 1
        rate = document.exchange_rate if document.currency != "PEN" else Decimal(1)
        parts = (
            document.totals[k] for k in ("total_taxed", "total_exonerated", "total_unaffected", "total_igv")
        )
        expected += sign * sum((round2(p * rate) for p in parts), Decimal(0))
    return expected


def test_figures_match_the_tenant_to_the_cent(tenant: StandIn) -> None:
    today = peru_today()
    month = today.replace(day=1)
    start = today - dt.timedelta(days=29)
    at = page("views/documents.py")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Importe total"] == f"S/ {_total(tenant, start, today):,.2f}"
    assert int(metrics["Documentos"]) == sum(1 for d in tenant.tenant.documents if d.date_of_issue >= start)
    if not tenant.variant.list_exchange_rate:
        assert "US$ 49.80" in texts(at.caption)  # shown by currency, never added at a guessed rate
    for path in ("views/home.py", "views/periods.py"):  # this month
        metrics = {m.label: m.value for m in page(path).metric}
        assert metrics["Importe total"] == f"S/ {_total(tenant, month, today):,.2f}", path
    if tenant.variant.list_exchange_rate:
        metrics = {m.label: m.value for m in page("views/register.py").metric}
        assert metrics["Importe total"] == f"S/ {_total(tenant, month, today):,.2f}"


def test_register_knows_what_each_note_modifies(tenant: StandIn) -> None:
    note = next(d for d in tenant.tenant.documents if d.document_type_id == "07")
    at = page("views/register.py")
    month = next(
        p for p in at.selectbox(key="register_month").options if p.startswith(f"{note.date_of_issue:%m/%Y}")
    )
    at.selectbox(key="register_month").set_value(month).run()
    lines = next(t.value for t in at.dataframe if "Estado" in t.value.columns)  # after the reconciliation
    row = lines[(lines["Serie"] == note.series) & (lines["Número"].astype(int) == note.number)].iloc[0]
    assert (
        f"{row['Serie CP modificado']}-{int(row['Número CP modificado'])}"
        == tenant.tenant.document_by_id(note.affected_id).number_full
    )
    shown = everything(at)
    assert "sin documento modificado" not in shown and "campo 28" not in shown


def test_customers_are_not_mixed_with_suppliers(tenant: StandIn) -> None:
    at = page("views/customers.py")
    names = set(at.dataframe[0].value["Nombre"])
    assert {name for _, _, name in CUSTOMERS} <= names
    assert not names & {name for _, _, name in SUPPLIERS}
    at.radio(key="person_kind").set_value("suppliers").run()
    assert set(at.dataframe[0].value["Nombre"]) == {name for _, _, name in SUPPLIERS}


def test_void_a_factura_by_default(tenant: StandIn) -> None:
    invoice = next(
        d for d in tenant.tenant.documents if d.document_type_id == "01" and d.date_of_issue == peru_today()
    )
    at = page("views/void.py")
    assert not at.get("expander") or "Opciones del servicio" not in [e.label for e in at.expander]
    at.multiselect(key="void_docs").set_value([invoice.external_id]).run()
    at.button(key="void_submit").click().run()
    assert invoice.state_type_id == "05"  # nothing is sent before the confirmation
    confirm(at, "void")
    assert not at.exception, at.exception
    assert not at.error, texts(at.error)
    assert invoice.state_type_id == "13"  # the tenant took the date it reads


def test_sale_notes_page_issues_lists_and_converts(tenant: StandIn) -> None:
    at = page("views/sale_notes.py")
    product = tenant.tenant.items[0]
    at.selectbox(key="note_item_0").set_value(product.id).run()
    assert not at.exception, at.exception
    before = len(tenant.tenant.sale_notes)
    at.button(key="note_issue").click().run()
    assert not at.exception and not at.error, texts(at.error)
    assert len(tenant.tenant.sale_notes) == before + 1
    note = tenant.tenant.sale_notes[-1]
    assert note.items[0]["item"]["description"] == product.description  # printed from the line
    listed = set(at.dataframe[1].value["Número"]) if len(at.dataframe) > 1 else set()
    shown = texts(at.info)
    in_range = {
        n.number_full
        for n in tenant.tenant.sale_notes
        if n.date_of_issue >= peru_today() - dt.timedelta(days=29)
    }
    assert in_range <= listed or "La empresa no filtra por fecha: de sus últimas" in shown
    at.selectbox(key="note_picked").set_value(note.number_full).run()
    at.button(key="note_convert").click().run()
    assert not at.exception and not at.error, texts(at.error)
    assert note.document_ids


@pytest.fixture
def stored(tenant: StandIn) -> StandIn:
    """The same stand-in, its pages reading from a local store (``store = true``)."""
    import os

    with Path(os.environ["FACTURADOR_TENANTS"]).open("a", encoding="utf-8") as file:
        file.write("store = true\n")
    return tenant


def test_through_the_local_store_the_figures_still_match(stored: StandIn) -> None:
    """A real tenant has no list extension: the store reads it by ranges and the pages show the same
    figures, to the cent, and the same notes' modified documents."""
    import os

    test_figures_match_the_tenant_to_the_cent(stored)
    test_register_knows_what_each_note_modifies(stored)
    assert list(Path(os.environ["FACTURADOR_STORE_DIR"]).glob("documents-*.duckdb"))


#: The pages that read a tenant's documents through the local store's sync, whose pages of a range are
#: asked in a worker thread: there the rate limit's waits are said.
SYNCED = (
    "views/periods.py",
    "views/register.py",
    "views/receivables.py",
    "views/summaries.py",
    "views/void.py",
    "views/commerce.py",
)


@pytest.mark.slow
def test_every_page_keeps_working_while_the_tenant_throttles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pro9 with its throttle on (3 requests a window of 1 s: a wait every second request, however slow
    the machine, in a short test), the dashboard reading through its local store, the pages that sync
    through it visited in one session: the connector waits for the window in the store's worker thread
    and says so in the sidebar; no page shows a traceback (``tests/dashboard/test_browser_throttle.py``
    visits every page in Chromium)."""
    standin = stand_in(VARIANTS["pro9"], limit=3, window=1.0)
    seed(standin.tenant)
    said: list[str] = []
    with running(standin):
        path = write_tenants(tmp_path / "tenants.toml", standin.root, standin.token, name="COMERCIAL REAL")
        with path.open("a", encoding="utf-8") as file:
            file.write("store = true\nrate_window = 1\n")
        monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
        at = AppTest.from_file(str(APP_PATH), default_timeout=120)
        at.run()
        for view in SYNCED:
            at.switch_page(view).run()
            assert not at.exception, (view, at.exception)
            shown = everything(at)
            assert not [n for n in NEVER if n in shown], (view, shown)
            said += [c for c in texts(at.sidebar.caption).splitlines() if "Esperando" in c]
    assert standin.throttled == 0  # the connector waited instead of being refused
    assert any("3 solicitudes cada 1 s" in s for s in said), said  # the waits reached the sidebar
