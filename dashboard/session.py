"""Per-session state of the dashboard: the tenant picked in the sidebar, its client, its connection.

The entry script (``app.py``) calls :func:`sidebar` on every run; pages call :func:`require_connection`
to get the :class:`Active` tenant or stop with a clear message. Clients live in the session (one per
tenant and session), never in a global cache, so a token never leaves the session that loaded it.
Cached data (:func:`load_documents`) is keyed by the tenant's slug and base URL and the date range,
never by the token. The tickets the session created are kept per tenant (:func:`ticket_book`).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cached_property
from typing import Any, TypeVar, cast

import pandas as pd
import streamlit as st

from analysis.alerts import ALERT_STATES, LOOK_BACK_DAYS
from analysis.sales import Sale, listed_sales, sales_of
from connector import Client, FacturadorError
from connector.closes import MonthCloses
from connector.config import TenantConfig, TenantConfigError, load_tenants, tenants_candidates, tenants_path
from connector.parsing import gc_paused
from connector.store import LocalStore, closes_path, store_path
from connector.tickets import TicketResource
from dashboard import data
from dashboard.tickets import TicketBook

#: Seconds a successful connection check is trusted before the next ``ping``.
PING_TTL_OK = 60.0
#: Seconds a failed connection check is kept (so a down service is not hammered on every click).
PING_TTL_FAILED = 5.0
#: Seconds a loaded document list stays in ``st.cache_data``.
LIST_TTL = 300
#: DuckDB's memory for each store the dashboard opens: Periodos' products of a month of 84k documents
#: (their lines unnested) took the process to 1.14 GB with DuckDB's 1 GB and to 750 MB with this, as
#: fast; a first sync of a year from the dashboard spills to disk beyond it (slower, not bigger).
STORE_MEMORY = "512MB"
#: Rows of each page a sync from the dashboard asks for (the store's default is 20,000): with pages of
#: 20,000 (three in flight: asked, staged, queued) the first sync of a 100k-document month's register
#: range (250,000 documents) took the process to 1.14 GB; with 5,000, 0.93 GB, and not slower in those
#: runs (195 s against 521 s, the shared machine's load varying); a dashboard's first run on that store
#: peaked at 945 MB against 1,116 MB (benchmarks/register_dashboard.py).
STORE_PAGE_ROWS = 5_000
#: Views (figures of a page and its filters) remembered per loaded range.
MEMO_ENTRIES = 8

T = TypeVar("T")

EXAMPLE_TENANTS = """\
# export FACTURADOR_TENANTS=/ruta/tenants.toml
[tenants.demo]
name = "Demo"
base_url = "http://127.0.0.1:8000/t/demo"
token_env = "FACTURADOR_DEMO_TOKEN"  # o: token = "..."
"""


@dataclass
class Active:
    """The tenant this session works on, its client and the last connection check."""

    tenant: TenantConfig
    client: Client
    key: str
    ok: bool
    message: str


def tenant_key(tenant: TenantConfig) -> str:
    """The cache key of a tenant: its slug and base URL (never its token)."""
    return f"{tenant.slug}@{tenant.base_url}"


def _tenants() -> tuple[dict[str, TenantConfig], str | None]:
    """The configured tenants, or an explanation (in Spanish) of why there are none."""
    path = tenants_path()
    if not path.is_file():
        looked = ", ".join(f"`{place}`" for place in tenants_candidates())
        return {}, (
            f"No se encontró el archivo de empresas (se buscó en {looked}). Arranca la demo "
            "(`bash scripts/demo.sh`) o crea uno con una tabla `[tenants.<slug>]` por empresa (o apunta "
            "`FACTURADOR_TENANTS` a uno)."
        )
    try:
        tenants = load_tenants(path)
    except TenantConfigError as exc:
        return {}, f"No se pudo leer el archivo de empresas: {exc}"
    if not tenants:
        return {}, f"El archivo de empresas `{path}` no define ninguna empresa."
    return tenants, None


def configured_tenants() -> tuple[dict[str, TenantConfig], str | None]:
    """Every company of the tenants file, or why there are none (in Spanish): the portfolio's page reads
    them all, whichever is the active one."""
    return _tenants()


def client_for(tenant: TenantConfig) -> Client:
    """This session's client of ``tenant``; rebuilt when the tenant's configuration changed."""
    clients: dict[str, tuple[TenantConfig, Client]] = st.session_state.setdefault("_clients", {})
    key = tenant_key(tenant)
    entry = clients.get(key)
    if entry is None or entry[0] != tenant:
        if entry is not None:
            _close(entry[1])
        entry = (tenant, tenant.client(default_cache=True))  # every rerun reads the same lists
        clients[key] = entry
        st.session_state.pop("_pings", None)
    return entry[1]


def _close(client: Client) -> None:
    close = getattr(client, "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # pragma: no cover - closing is best effort
            pass


def check_connection(tenant: TenantConfig, client: Client, *, force: bool = False) -> tuple[bool, str]:
    """``(ok, message)`` of ``client.ping()``, remembered for a short while in the session."""
    pings: dict[str, tuple[float, bool, str]] = st.session_state.setdefault("_pings", {})
    key = tenant_key(tenant)
    now = time.monotonic()
    hit = pings.get(key)
    if hit is not None and not force:
        ttl = PING_TTL_OK if hit[1] else PING_TTL_FAILED
        if now - hit[0] < ttl:
            return hit[1], hit[2]
    try:
        status = client.ping()
        ok, message = bool(status.ok), str(status.message)
    except FacturadorError as exc:
        ok, message = False, exc.message
    except Exception as exc:  # the connector should not raise from ping; be safe anyway
        ok, message = False, f"No se pudo conectar: {exc}"
    pings[key] = (now, ok, message)
    return ok, message


def _recheck() -> None:
    st.session_state.pop("_pings", None)


def forget_connection() -> None:
    """Check the connection again on the next run (after a call failed)."""
    _recheck()


def sidebar() -> Active | None:
    """Draw the sidebar (tenant picker and connection status); return the active tenant, if any."""
    with st.sidebar:
        tenants, problem = _tenants()
        if problem:
            st.error(problem, icon=":material/domain_disabled:")
            st.caption("Ejemplo:")
            st.code(EXAMPLE_TENANTS, language="toml")
            _no_tenant(problem)
            return None
        slugs = list(tenants)
        if st.session_state.get("tenant") not in slugs:
            st.session_state["tenant"] = slugs[0]
        slug = st.selectbox(
            "Empresa",
            slugs,
            format_func=lambda s: tenants[s].name,
            key="tenant",
            help=f"Empresas de `{tenants_path()}`",
        )
        tenant = tenants[slug]
        st.caption(f"`{tenant.base_url}`")
        try:
            client = client_for(tenant)
        except TenantConfigError as exc:  # token_env not set
            st.error(str(exc), icon=":material/key_off:")
            _no_tenant(str(exc))
            return None
        ok, message = check_connection(tenant, client)
        if ok:
            st.success(f"Conectado a {tenant.name}", icon=":material/cloud_done:")
        else:
            st.error(message, icon=":material/cloud_off:")
        st.button("Comprobar conexión", on_click=_recheck, icon=":material/refresh:", width="stretch")
        # the connector's long waits and walks of this run (rate limit, pages), from any of its threads
        client.progress = progress_line(st.empty())
    active = Active(tenant=tenant, client=client, key=tenant_key(tenant), ok=ok, message=message)
    st.session_state["_active"] = active
    st.session_state.pop("_problem", None)
    return active


def progress_line(place: Any) -> Callable[[str], None]:
    """A progress callback that writes each sentence as a caption in ``place`` (an ``st.empty()``), from
    the script's thread or from any other: the local store's sync asks a tenant for pages in a worker
    thread, and the rate limit's waits are said there. Such a thread borrows this run's context for the
    one write (as Streamlit's own spinner timer does) and gives it back; a sentence that arrives when the
    run is over is dropped, as a progress line never fails a reading."""
    from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx
    from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException
    from streamlit.runtime.scriptrunner_utils.script_run_context import SCRIPT_RUN_CONTEXT_ATTR_NAME

    owner = get_script_run_ctx(suppress_warning=True)

    def tell(sentence: str) -> None:
        text = f":material/hourglass_top: {sentence}"
        if owner is None or get_script_run_ctx(suppress_warning=True) is not None:
            place.caption(text)
            return
        thread = threading.current_thread()
        add_script_run_ctx(thread, owner)
        try:
            place.caption(text)
        except (Exception, ScriptControlException):  # the run moved on: nothing left to tell
            pass
        finally:
            setattr(thread, SCRIPT_RUN_CONTEXT_ATTR_NAME, None)

    return tell


def _no_tenant(problem: str) -> None:
    st.session_state.pop("_active", None)
    st.session_state["_problem"] = problem


def require_connection() -> Active:
    """The active tenant of this run, or stop the page with the reason there is none."""
    active: Active | None = st.session_state.get("_active")
    if active is None:
        problem = st.session_state.get("_problem") or "No hay ninguna empresa configurada."
        st.warning(
            f"{problem}\n\nConfigura una empresa para empezar (ver la barra lateral).",
            icon=":material/domain_disabled:",
        )
        st.stop()
    if not active.ok:
        st.error(
            f"**Sin conexión con {active.tenant.name}.** {active.message}",
            icon=":material/cloud_off:",
        )
        st.caption(
            f"Servicio: `{active.tenant.base_url}`. Corrige el archivo de empresas o arranca el servicio, "
            "y pulsa «Comprobar conexión»."
        )
        st.stop()
    return active


@dataclass(frozen=True)
class Loaded:
    """A loaded date range: the DataFrame (read-only: pages filter copies of it) and the same documents as
    :class:`analysis.sales.Sale` (Decimal amounts), by the row position the DataFrame's index keeps.

    ``source`` is the DataFrame, or what builds it: it is built on first use of :attr:`frame`, so a page
    that reads only the sales (Inicio's alerts over a year of documents) does not wait for it."""

    source: pd.DataFrame | Callable[[], pd.DataFrame]
    sales: dict[int, Sale]
    has_details: bool = False
    rows: tuple[dict[str, Any], ...] = ()
    _memo: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def frame(self) -> pd.DataFrame:
        """The documents as a DataFrame (built once, on first use)."""
        return self.source() if callable(self.source) else self.source

    def memo(self, key: Hashable, build: Callable[[], T]) -> T:
        """What ``build()`` gives for these documents and ``key`` (say, the page and its filters),
        built once: a rerun of the page (a click in the table, a download) reuses it instead of
        recomputing the figures of 20,000 documents. The entry goes with the loaded range."""
        try:
            return cast(T, self._memo[key])
        except KeyError:
            pass
        value = build()
        while len(self._memo) >= MEMO_ENTRIES:
            self._memo.pop(next(iter(self._memo)), None)
        self._memo[key] = value
        return value

    def sales_of(self, frame: pd.DataFrame) -> list[Sale]:
        """The sales of the rows of ``frame`` (a filtered part of :attr:`frame`)."""
        return [self.sales[p] for p in frame.index if p in self.sales]

    @property
    def all_sales(self) -> list[Sale]:
        """Every document of the range."""
        return list(self.sales.values())


def _loaded(listed: Any) -> Loaded:
    with gc_paused():
        sales = {sale.position: sale for sale in listed_sales(listed)}

    def frame() -> pd.DataFrame:
        with gc_paused():
            return listed.to_dataframe() if len(listed) else data.empty_documents()

    return Loaded(frame, sales, bool(len(listed)) and listed.has_details, tuple(listed.rows))


@st.cache_resource(show_spinner=False)
def _store_of(key: str, base_url: str) -> LocalStore:
    """The process's local store of tenant ``key`` (one DuckDB file per tenant, shared by its sessions)."""
    return LocalStore(store_path(base_url), memory_limit=STORE_MEMORY, page_rows=STORE_PAGE_ROWS)


def local_store(active: Active) -> LocalStore | None:
    """The local store the pages read ``active``'s documents from (``connector.store``), or ``None``
    when its tenants-file entry says ``store = false`` (or ``cache = false``): then every load asks the
    tenant for the range."""
    if not active.tenant.uses_store(default_cache=True):
        return None
    return _store_of(active.key, active.tenant.base_url)


def month_closes(active: Active) -> MonthCloses:
    """The months ``active``'s tenant has closed (``connector.closes``: beside its local store, shared with
    ``facturador register``), read again on every call: the command line may have closed one."""
    return MonthCloses(closes_path(active.tenant.base_url))


def reader(active: Active) -> Any:
    """The client the pages that take one (the sales register) read lists through: the local store's
    reader, or the tenant's client itself."""
    store = local_store(active)
    return active.client if store is None else store.reading(active.client)


@st.cache_resource(ttl=LIST_TTL, max_entries=32, show_spinner=False)
def load_range(
    key: str,
    start: date,
    end: date,
    details: bool,
    _client: Client,
    _fresh: bool = False,
    _store: LocalStore | None = None,
) -> Loaded:
    """The documents of tenant ``key`` issued between ``start`` and ``end`` (cached by key, range and
    detail; shared read-only between the sessions of one tenant, never keyed by the token): from the
    local store, synced first, when there is one; else asked to the tenant."""
    if _store is not None:
        _store.sync(start, end, client=_client, full=_fresh)
        return _loaded(_store.documents(start, end))
    return _loaded(_client.documents.list(start, end, fresh=_fresh, details=details))


#: The ranges :func:`synced_range` holds, by tenant key and dates, while it holds them: what
#: :func:`read_scope` looks up without syncing.
_SYNCED: weakref.WeakValueDictionary[tuple[str, date, date], data.Scope] = weakref.WeakValueDictionary()


@st.cache_resource(ttl=LIST_TTL, max_entries=32, show_spinner=False)
def synced_range(
    key: str, start: date, end: date, _client: Client, _fresh: bool, _store: LocalStore
) -> data.Scope:
    """Tenant ``key``'s local store synced for ``start``..``end`` (cached by key and range, as
    :func:`load_range`), as the :class:`~dashboard.data.Scope` the pages query."""
    _store.sync(start, end, client=_client, full=_fresh)
    scope = _SYNCED[key, start, end] = data.Scope(_store, start, end)
    return scope


def read_scope(active: Active, start: date, end: date) -> data.Scope | None:
    """The range's :class:`~dashboard.data.Scope` when this process has it synced and nothing asks to
    read it again (a change made in this session); ``None`` otherwise (then :func:`scoped` syncs)."""
    if "_documents_stale" in st.session_state or st.session_state.get("_documents_changed_days"):
        return None
    return _SYNCED.get((active.key, start, end))


def scoped(
    active: Active, start: date, end: date, *, refresh: bool = False, details: bool = False
) -> data.Scope:
    """A range of ``active``'s documents to read in SQL (Documentos, Periodos, Inicio): the local store,
    synced first; without one, the tenant's answer (through :func:`loaded`'s cache) held in an
    in-memory store built once per loaded range, so the pages run the same queries either way."""
    store = local_store(active)
    if store is None:
        got = loaded(active, start, end, refresh=refresh, details=details)
        return got.memo(("scope",), lambda: data.Scope(LocalStore.holding(got.rows), start, end))
    fresh = refresh or bool(st.session_state.pop("_documents_stale", False))
    store.forget(st.session_state.pop("_documents_changed_days", ()))
    if fresh:
        synced_range.clear(active.key, start, end, active.client, fresh, store)  # this entry only
    return synced_range(active.key, start, end, active.client, fresh, store)


def alert_scope(active: Active, today: date, *, refresh: bool = False) -> tuple[data.Scope, list[Sale]]:
    """The range the alerts look at (:data:`analysis.alerts.LOOK_BACK_DAYS` days to ``today``) and its
    documents in :data:`analysis.alerts.ALERT_STATES`, read from the store once per range: Inicio's
    alerts and Resúmenes' boletas to declare read the same documents, so they count the same."""
    start = today - timedelta(days=LOOK_BACK_DAYS - 1)
    year = scoped(active, start, today, refresh=refresh)

    def watched() -> list[Sale]:
        where, values = year.where()
        marks = ", ".join("?" for _ in ALERT_STATES)
        rows = year.store.listed(f"{where} AND state_type_id IN ({marks})", [*values, *sorted(ALERT_STATES)])
        return sales_of(rows.rows)

    return year, year.memo(("alerts",), watched)


def invalidate_documents(*days: date) -> None:
    """Forget loaded lists after a change (issue, send, status) so the next load asks the service again;
    ``days`` are the issue dates of the documents changed (the local store fetches them again whole)."""
    load_range.clear()
    synced_range.clear()
    st.session_state["_documents_stale"] = True
    changed: set[date] = st.session_state.setdefault("_documents_changed_days", set())
    changed.update(days)


def loaded(active: Active, start: date, end: date, *, refresh: bool = False, details: bool = False) -> Loaded:
    """Load a range through the cache; ``refresh`` (or a change made in this session) bypasses it."""
    fresh = refresh or bool(st.session_state.pop("_documents_stale", False))
    store = local_store(active)
    if store is not None:
        store.forget(st.session_state.pop("_documents_changed_days", ()))
    if fresh:
        load_range.clear(active.key, start, end, details, active.client, fresh, store)  # this entry only
    return load_range(active.key, start, end, details, active.client, fresh, store)


def documents(active: Active, start: date, end: date, *, refresh: bool = False) -> pd.DataFrame:
    """The DataFrame of a range (see :func:`loaded`)."""
    return loaded(active, start, end, refresh=refresh).frame


def day_documents(active: Active, day: date) -> pd.DataFrame:
    """The documents issued on ``day``, always asked to the service (no cache): the pages that void or
    declare documents must see their current states, whoever changed them."""
    listed = active.client.documents.list(day, day, fresh=True)
    return listed.to_dataframe() if len(listed) else data.empty_documents()


def ticket_book(active: Active) -> TicketBook:
    """The summaries and voided communications this session created (or looked up) for the active
    tenant: the service has no endpoint that lists them."""
    books: dict[str, TicketBook] = st.session_state.setdefault("_ticket_books", {})
    return books.setdefault(active.key, TicketBook())


def ticket_resource(active: Active, family: str) -> TicketResource:
    """``client.summaries`` or ``client.voided`` of the active tenant."""
    return active.client.voided if family == "voided" else active.client.summaries


def flash(kind: str, text: str) -> None:
    """Keep a message to show after the next rerun (``kind``: success, error, info, warning)."""
    st.session_state["_flash"] = (kind, text)


def show_flash() -> None:
    """Show (once) the message kept by :func:`flash`."""
    item: Any = st.session_state.pop("_flash", None)
    if item:
        kind, text = item
        getattr(st, kind)(text)
