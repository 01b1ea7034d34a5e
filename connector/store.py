"""A local columnar copy of one tenant's documents, kept in a DuckDB file and synced incrementally.

``docs/local_store.md`` says why DuckDB, what is fetched when, and how this service's list extension
(``changed_since``, ``limit``, ``after``) is used where the tenant offers it. In short:

* a day is fetched whole once (a date range at a time: what every real tenant offers), and again only
  while its documents may still change: it is recent (``recent_days``: a voiding or a summary may still
  move it) or it holds a document whose state will move (registered, sent, being voided);
* where the tenant answers the extension, a refresh is one walk of what changed since the last one
  (``changed_since``), and first fetches are walked in pages (``limit``/``after``), so neither side ever
  holds a year at once;
* every write is one transaction: a day is either absent or complete with its mark, so a failed sync
  leaves what the previous one left, plus whole chunks.

The rows are kept as the tenant sent them (``raw``, exact: amounts as the strings or numbers it wrote)
beside typed columns for SQL (amounts as ``DECIMAL(18,2)``, dates as ``DATE``). :meth:`LocalStore.documents`
gives the usual :class:`~connector.models.DocumentList`, :meth:`LocalStore.frame` a pandas DataFrame
straight from the columns, :meth:`LocalStore.sql` any query. Needs ``duckdb`` and ``pyarrow`` (the
``connector`` extra).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from connector.columns import REGISTER_AMOUNTS
from connector.models import DocumentList, link_notes
from connector.parsing import coerce_date, gc_paused
from sunat.calendar import peru_today

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

    from connector.client import Client
    from connector.documents import ChangesPage

__all__ = [
    "MOVABLE_STATES",
    "LocalStore",
    "StoreError",
    "StoredClient",
    "SyncReport",
    "closes_path",
    "default_store_directory",
    "store_path",
]

#: States a document leaves on its own later: registered (01), sent (03), being voided (13).
MOVABLE_STATES = ("01", "03", "13")
#: Days back from today whose documents are fetched again on every sync (without the extension): a
#: voiding communication or a daily summary may still change them (SUNAT's 7-day window).
RECENT_DAYS = 7
#: A refresh with the extension asks for changes since the last one's time minus this: a transaction
#: that started before it and committed after it is still seen.
OVERLAP = dt.timedelta(minutes=2)
#: Rows per page of the extension.
PAGE_ROWS = 20_000
#: Days fetched and committed together: one request a chunk without the extension, and with it a walk of
#: pages (``WALK_DAYS``).
CHUNK_DAYS = 7
WALK_DAYS = 28
#: DuckDB's memory per store unless told (its default is most of the machine's; below 1 GB a first sync
#: spills its staged pages to disk and runs about twice as long).
MEMORY_LIMIT = "1GB"
#: How long the answer to "does the tenant offer the extension?" is trusted.
PROBE_TTL = 600.0
#: The day the probe asks for: no tenant has documents on it, so the answer is tiny everywhere.
_PROBE_DAY = dt.date(2000, 1, 1)
_AMOUNTS = (
    "total_taxed",
    "total_exonerated",
    "total_unaffected",
    "total_exportation",
    "total_free",
    "total_igv",
    "total_plastic_bag_taxes",
    "total_taxes",
    "total_value",
    "total",
)
#: The columns each version of the file added after the first (read out of ``raw`` for the rows a file
#: already holds when it is upgraded), with their types.
_ADDED = {
    2: {
        "created_at": "TIMESTAMP",
        "updated_at": "TIMESTAMP",
        "customer_identity_type": "VARCHAR",
        "exact": "BOOLEAN",
        "lists_notes": "BOOLEAN",
    },
    3: {"hand_set": "BOOLEAN"},
}
#: The version of the tables below, kept in ``meta`` (``schema``; a file without it is version 1): a
#: file of an older version is upgraded when opened to write (:meth:`LocalStore._upgrade`).
SCHEMA_VERSION = max(_ADDED)
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key VARCHAR, value VARCHAR);
CREATE TABLE IF NOT EXISTS days (day DATE, fetched_at TIMESTAMP, as_of TIMESTAMP);
CREATE TABLE IF NOT EXISTS documents (
    external_id VARCHAR, id BIGINT, date_of_issue DATE, number VARCHAR, series VARCHAR,
    correlative BIGINT, document_type_id VARCHAR, state_type_id VARCHAR, currency_type_id VARCHAR,
    customer_number VARCHAR, customer_name VARCHAR, exchange_rate_sale DECIMAL(12, 6),
    {", ".join(f"{name} DECIMAL(18, 2)" for name in _AMOUNTS)},
    has_cdr BOOLEAN, raw BLOB,
    {", ".join(f"{name} {kind}" for added in _ADDED.values() for name, kind in added.items())}
);
"""
_COLUMNS = (
    "external_id",
    "id",
    "date_of_issue",
    "number",
    "series",
    "correlative",
    "document_type_id",
    "state_type_id",
    "currency_type_id",
    "customer_number",
    "customer_name",
    "exchange_rate_sale",
    *_AMOUNTS,
    "has_cdr",
    "raw",
    *(name for added in _ADDED.values() for name in added),
)
#: Text keys of a row the typed columns read as they are (``exact`` needs them JSON strings or null).
_TEXT_KEYS = (
    "number",
    "series",
    "document_type_id",
    "state_type_id",
    "currency_type_id",
    "customer_number",
    "customer_name",
    "customer_identity_document_type_id",
)


class StoreError(RuntimeError):
    """The store cannot be used as asked: it belongs to another tenant, or its file is unreadable."""


@dataclass
class SyncReport:
    """What one :meth:`LocalStore.sync` did: requests sent, days fetched whole, rows received, whether the
    tenant answered the extension, and the seconds it took."""

    requests: int = 0
    days_fetched: int = 0
    rows: int = 0
    extended: bool = False
    seconds: float = 0.0
    fetched: list[tuple[dt.date, dt.date]] = field(default_factory=list)


def default_store_directory() -> Path:
    """Where stores live unless told: ``$FACTURADOR_STORE_DIR`` or ``<user cache dir>/facturador/stores``."""
    import os

    import platformdirs

    env = os.environ.get("FACTURADOR_STORE_DIR")
    return Path(env).expanduser() if env else Path(platformdirs.user_cache_dir("facturador")) / "stores"


def store_path(base_url: str, directory: str | Path | None = None) -> Path:
    """The file of a tenant's store: named by a digest of its base URL (one file per tenant)."""
    folder = Path(directory).expanduser() if directory is not None else default_store_directory()
    digest = hashlib.blake2b(base_url.rstrip("/").encode(), digest_size=8).hexdigest()
    return folder / f"documents-{digest}.duckdb"


def closes_path(base_url: str, directory: str | Path | None = None) -> Path:
    """The file of a tenant's closed months (:class:`connector.closes.MonthCloses`): beside its store's
    file, ``documents-<digest>.closes.json``, whether or not the tenant reads through a store."""
    return store_path(base_url, directory).with_suffix(".closes.json")


def _runs(days: Iterable[dt.date], longest: int) -> Iterator[tuple[dt.date, dt.date]]:
    """Consecutive days as ``(first, last)`` ranges of at most ``longest`` days."""
    first = last = None
    for day in sorted(set(days)):
        if first is not None and last is not None and day == last + dt.timedelta(days=1):
            if (day - first).days < longest:
                last = day
                continue
        if first is not None and last is not None:
            yield first, last
        first = last = day
    if first is not None and last is not None:
        yield first, last


#: The keys read out of each row's JSON, in one pass (DuckDB's ``json_extract_string`` with a list).
_JSON_KEYS = tuple(
    dict.fromkeys(
        [
            *(name for name in _COLUMNS if name != "raw" and not any(name in a for a in _ADDED.values())),
            "correlative",  # not a column read as is
            "created_at",
            "updated_at",
            *_TEXT_KEYS,
        ]
    )
)
_PLAIN_AMOUNT = r"-?[0-9]{1,16}(\.[0-9]{1,2})?"
_PLAIN_RATE = r"-?[0-9]{1,6}(\.[0-9]{1,6})?"
_STAMP = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}"


def _json_columns(source: str, names: Sequence[str] = _COLUMNS, *keep: str) -> str:
    """The columns ``names`` of ``documents`` (and ``keep`` as they are) read from a row's JSON text
    ``doc`` in ``source`` (its keys extracted once, as ``v``, their JSON types as ``t``), as the tenants
    write them: dates ``Y-m-d`` or ``d-m-Y``,
    amounts as strings (``"1,250.00"`` too) or numbers, flags as booleans, 0/1 or text; series and
    correlative from ``number`` when the row lacks them; unreadable amounts are 0 (``raw`` keeps what
    came).

    ``exact``: the row is written plainly enough that its typed columns hold exactly what
    :mod:`connector.parsing` reads of ``raw`` (text keys strings, ``number`` ``SERIES-digits``, ISO or
    ``d-m-Y`` dates, ``Y-m-d H:M:S`` times without an offset (Lima's wall clock; one with an offset is
    read from ``raw``, converted), amounts of at most 2 decimals, 0/1/true/false flags): the
    sales register reads such rows from the columns, the others from ``raw``; ``lists_notes``: the row
    lists notes (``notes``, a factura's: the register links them on the rows); ``hand_set``: its state
    was set by hand (``state_changes``, this service's audit record: the register names it)."""

    def key(name: str) -> str:
        return f"v[{_JSON_KEYS.index(name) + 1}]"

    def kind(name: str) -> str:
        return f"t[{_TEXT_KEYS.index(name) + 1}]"

    def stamp(name: str) -> str:
        return (
            f"CASE WHEN regexp_matches({key(name)}, '{_STAMP}') THEN "
            f"try_strptime(replace(left({key(name)}, 19), 'T', ' '), '%Y-%m-%d %H:%M:%S') END"
        )

    def blank_or(name: str, pattern: str) -> str:
        return f"coalesce({key(name)}, '') = '' OR regexp_full_match({key(name)}, '{pattern}')"

    day, number = f"left({key('date_of_issue')}, 10)", key("number")
    columns = {
        "id": f"TRY_CAST({key('id')} AS BIGINT)",
        "date_of_issue": f"CAST(coalesce(try_strptime({day}, '%Y-%m-%d'), try_strptime({day}, '%d-%m-%Y'), "
        f"try_strptime({day}, '%d/%m/%Y')) AS DATE)",
        "series": f"coalesce(nullif({key('series')}, ''), regexp_extract({number}, '^(.*)-[^-]*$', 1))",
        "correlative": f"coalesce(TRY_CAST(nullif({key('correlative')}, '') AS BIGINT), "
        f"TRY_CAST(regexp_extract({number}, '([^-]*)$', 1) AS BIGINT))",
        "exchange_rate_sale": f"TRY_CAST(replace({key('exchange_rate_sale')}, ',', '') AS DECIMAL(12, 6))",
        "has_cdr": f"lower(trim(coalesce({key('has_cdr')}, ''))) IN ('1', 'true', 'si', 'sí')",
        "raw": "encode(doc)",
        "created_at": stamp("created_at"),
        "updated_at": stamp("updated_at"),
        "customer_identity_type": key("customer_identity_document_type_id"),
    }
    for name in _AMOUNTS:
        columns[name] = f"coalesce(TRY_CAST(replace(trim({key(name)}), ',', '') AS DECIMAL(18, 2)), 0)"
    exact = [
        *(f"coalesce({kind(name)}, 'NULL') IN ('VARCHAR', 'NULL')" for name in _TEXT_KEYS),
        f"regexp_full_match(coalesce({number}, ''), '.*-[0-9]{{1,18}}')",
        f"regexp_full_match(coalesce({key('date_of_issue')}, ''), "
        "'[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{2}-[0-9]{2}-[0-9]{4}')",
        blank_or("correlative", "[0-9]{1,18}"),
        *(blank_or(name, _PLAIN_AMOUNT) for name in REGISTER_AMOUNTS),
        blank_or("exchange_rate_sale", _PLAIN_RATE),
        f"coalesce({key('has_cdr')}, '') IN ('', '0', '1', 'true', 'false')",
        *(blank_or(name, _STAMP[1:] + "([.][0-9]+)?") for name in ("created_at", "updated_at")),
    ]
    columns["exact"] = " AND ".join(f"({condition})" for condition in exact)
    columns["lists_notes"] = "coalesce(json_array_length(doc, '$.notes'), 0) > 0"
    columns["hand_set"] = "coalesce(json_array_length(doc, '$.state_changes'), 0) > 0"
    paths = ", ".join(f"'$.{name}'" for name in _JSON_KEYS)
    texts = ", ".join(f"'$.{name}'" for name in _TEXT_KEYS)
    selected = ", ".join([*keep, *(f"{columns.get(name) or key(name)} AS {name}" for name in names)])
    return (
        f"{selected} FROM (SELECT *, json_extract_string(doc, [{paths}]) AS v, "
        f"json_type(doc, [{texts}]) AS t FROM {source})"
    )


_FROM_JSON = _json_columns("page_batch")
#: Columns of how a row is read, not of the document: left out of :meth:`LocalStore.frame`.
_FLAGS = ("raw", "exact", "lists_notes", "hand_set")


class LocalStore:
    """One tenant's documents in a DuckDB file (see the module's docstring and ``docs/local_store.md``).

    :param path: the file (created with its folder when missing).
    :param client: the tenant's client that :meth:`sync` uses unless given another one.
    :param recent_days: days back from today fetched again on every sync without the extension.
    :param details: sync with each document's lines and instalments (this service's ``details=1``: the
        Periodos and Cuentas por cobrar pages read them; real tenants ignore it).
    :param read_only: open the file only to read (a notebook beside a running dashboard).
    :param memory_limit: DuckDB's memory for this file (beyond it, it works on disk): the dashboard's
        process must stay small.

    Thread-safe (one lock); one process writes a file at a time (DuckDB's lock).
    """

    def __init__(
        self,
        path: str | Path,
        client: Client | None = None,
        *,
        recent_days: int = RECENT_DAYS,
        chunk_days: int = CHUNK_DAYS,
        walk_days: int = WALK_DAYS,
        page_rows: int = PAGE_ROWS,
        details: bool = True,
        read_only: bool = False,
        memory_limit: str = MEMORY_LIMIT,
        clock: Callable[[], float] | None = None,
    ) -> None:
        import time

        import duckdb

        self.path = Path(path).expanduser()
        self.client = client
        self.recent_days, self.chunk_days, self.page_rows = recent_days, chunk_days, page_rows
        self.walk_days = walk_days
        self.details = details
        self._clock = clock or time.monotonic
        self._lock = threading.RLock()
        self._probed: tuple[float, bool] | None = None
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = duckdb.connect(
                str(self.path),
                read_only=read_only,
                config={"memory_limit": memory_limit},
            )
        except duckdb.Error as exc:
            raise StoreError(f"No se pudo abrir el almacén local {self.path}: {exc}") from exc
        self._db.execute("SET enable_progress_bar = false")  # a long upgrade or query prints nothing
        if not read_only:
            try:
                self._db.execute(_SCHEMA)
                self._upgrade()
                self._stamps_in_lima()
            except BaseException:
                self._db.close()  # the file as it was (the upgrade is one transaction), not held open
                raise
        #: The version of the file's tables (:data:`SCHEMA_VERSION` once upgraded; an older file opened
        #: read-only keeps its own).
        self.schema = self._version()

    def _version(self) -> int:
        """The file's version, by the columns its ``documents`` table has."""
        found = self._db.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 'documents' "
            "AND database_name = current_database() AND schema_name = 'main'"
        ).fetchall()
        columns = {name for (name,) in found}
        return max([1, *(version for version, added in _ADDED.items() if columns >= set(added))])

    def _stamps_in_lima(self) -> None:
        """Make sure the rows' times are Lima's wall clock, as every tenant answers them now: a file
        synced before this service answered in Lima time (its ``created_at`` / ``updated_at`` were UTC,
        and nothing in a row says which) forgets which days it has fetched, so each is fetched again,
        rows replaced, the next time a page syncs it; until then its rows read as they are. Marked in
        ``meta`` (``stamps`` = ``lima``), so it happens once."""
        if self._meta("stamps") == "lima":
            return
        db = self._db
        db.execute("BEGIN TRANSACTION")
        try:
            db.execute("DELETE FROM days")
            db.execute("INSERT INTO meta VALUES ('stamps', 'lima')")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _upgrade(self) -> None:
        """Bring a file of an older version to :data:`SCHEMA_VERSION` in one transaction: each missing
        column added and read out of the rows' ``raw`` (as a sync would have written it)."""
        version = self._version()
        if version == SCHEMA_VERSION:
            if self._meta("schema") is None:
                self._db.execute("INSERT INTO meta VALUES ('schema', ?)", [str(SCHEMA_VERSION)])
            return
        added = {name: kind for v, a in _ADDED.items() if v > version for name, kind in a.items()}
        source = "(SELECT rowid AS r, decode(raw) AS doc FROM documents)"
        db = self._db
        db.execute("BEGIN TRANSACTION")
        try:
            for name, kind in added.items():
                db.execute(f"ALTER TABLE documents ADD COLUMN {name} {kind}")
            assigned = ", ".join(f"{name} = parsed.{name}" for name in added)
            db.execute(
                f"UPDATE documents SET {assigned} FROM (SELECT {_json_columns(source, list(added), 'r')}) "
                "AS parsed WHERE documents.rowid = parsed.r"
            )
            db.execute("DELETE FROM meta WHERE key = 'schema'")
            db.execute("INSERT INTO meta VALUES ('schema', ?)", [str(SCHEMA_VERSION)])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @classmethod
    def for_client(cls, client: Client, directory: str | Path | None = None, **options: Any) -> LocalStore:
        """The store of ``client``'s tenant in ``directory`` (default :func:`default_store_directory`)."""
        return cls(store_path(client.base_url, directory), client, **options)

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> LocalStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- identity ---------------------------------------------------------------------------------

    def _meta(self, key: str) -> str | None:
        found = self._db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return None if found is None else str(found[0])

    def _claim(self, client: Client) -> None:
        """Make the store ``client``'s tenant's, or refuse when it is another tenant's."""
        owner, base = self._meta("base_url"), client.base_url.rstrip("/")
        if owner is None:
            self._db.execute("INSERT INTO meta VALUES ('base_url', ?)", [base])
        elif owner != base:
            raise StoreError(
                f"El almacén local {self.path} es de la empresa de {owner}, no de {base}: "
                "use el almacén de cada empresa (LocalStore.for_client)."
            )

    # -- syncing ----------------------------------------------------------------------------------

    def sync(
        self,
        start: dt.date | str,
        end: dt.date | str,
        *,
        client: Client | None = None,
        today: dt.date | None = None,
        full: bool = False,
    ) -> SyncReport:
        """Bring the documents issued from ``start`` to ``end`` up to date (days after today are left
        out) and say what it took. ``full=True`` fetches every day of the range again (the pages'
        «Actualizar»). On an error (the tenant down, the rate limit) what was committed stays and the
        error is raised: the next sync goes on from there."""
        who = client or self.client
        if who is None:
            raise ValueError("LocalStore.sync needs a client (LocalStore(path, client) or sync(client=...))")
        began = self._clock()
        report = SyncReport()
        first, last = coerce_date(start, "start"), coerce_date(end, "end")
        last = min(last, today or peru_today())
        with self._lock:
            self._claim(who)
            if first > last:
                return report
            wanted = [first + dt.timedelta(days=n) for n in range((last - first).days + 1)]
            known = {} if full else self._known(first, last)
            report.extended = self._offers_extension(who, report)
            if report.extended:
                stale = {day: as_of for day, as_of in known.items() if as_of is not None}
                for run in _runs((d for d in wanted if d not in stale), self.walk_days):
                    self._fetch(who, run, report, whole=True)
                if stale:
                    since = min(stale.values()) - OVERLAP
                    self._fetch(who, (min(stale), max(stale)), report, whole=False, since=since)
            else:
                settled = self._unsettled(first, last)
                recent = last - dt.timedelta(days=self.recent_days)
                again = [d for d in wanted if d not in known or d >= recent or d in settled]
                for run in _runs(again, self.chunk_days):
                    self._fetch(who, run, report, whole=True)
        report.seconds = self._clock() - began
        return report

    def _offers_extension(self, client: Client, report: SyncReport) -> bool:
        """Whether the tenant answers the list extension (asked with a tiny request, then trusted for
        :data:`PROBE_TTL` seconds)."""
        now = self._clock()
        if self._probed is not None and now - self._probed[0] < PROBE_TTL:
            return self._probed[1]
        page = client.documents.changes(_PROBE_DAY, _PROBE_DAY, limit=1)
        report.requests += 1
        self._probed = (now, page.extended)
        return page.extended

    def _known(self, first: dt.date, last: dt.date) -> dict[dt.date, dt.datetime | None]:
        """The fetched days of a range and the time of their last walk (``None``: fetched without the
        extension)."""
        rows = self._db.execute(
            "SELECT day, as_of FROM days WHERE day BETWEEN ? AND ?", [first, last]
        ).fetchall()
        return {day: as_of for day, as_of in rows}

    def _unsettled(self, first: dt.date, last: dt.date) -> set[dt.date]:
        """The days of a range holding a document whose state will move (:data:`MOVABLE_STATES`)."""
        marks = ", ".join("?" for _ in MOVABLE_STATES)
        rows = self._db.execute(
            f"SELECT DISTINCT date_of_issue FROM documents WHERE date_of_issue BETWEEN ? AND ? "
            f"AND state_type_id IN ({marks})",
            [first, last, *MOVABLE_STATES],
        ).fetchall()
        return {row[0] for row in rows}

    def _pages(
        self, client: Client, run: tuple[dt.date, dt.date], report: SyncReport, since: dt.datetime | None
    ) -> Iterator[ChangesPage]:
        """The answers for a range: every page of the extension, or the tenant's one plain answer. The
        next page is asked (in a thread) while the caller stages this one: the tenant's work and ours
        overlap instead of adding up."""
        box: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=1)
        stop = threading.Event()

        def walk() -> None:
            after: str | None = None
            try:
                while not stop.is_set():
                    page = client.documents.changes(
                        run[0], run[1], since=since, after=after, limit=self.page_rows, details=self.details
                    )
                    box.put(("page", page))
                    if not page.extended or page.next is None:
                        break
                    after = page.next
                box.put(("end", None))
            except BaseException as exc:  # handed to the caller, raised there
                box.put(("error", exc))

        thread = threading.Thread(target=walk, name="store-pages", daemon=True)
        thread.start()
        try:
            while True:
                kind, value = box.get()
                if kind == "end":
                    return
                if kind == "error":
                    raise value
                report.requests += 1
                report.rows += len(value.rows)
                yield value
        finally:
            stop.set()
            while thread.is_alive():  # let it finish its request and leave
                with contextlib.suppress(queue.Empty):
                    box.get(timeout=0.05)
            thread.join()

    def _fetch(
        self,
        client: Client,
        run: tuple[dt.date, dt.date],
        report: SyncReport,
        *,
        whole: bool,
        since: dt.datetime | None = None,
    ) -> None:
        """Fetch a range (``whole``: every document, the days replaced; else the changes since ``since``)
        into a staging table, then apply it in one transaction with the days' marks."""
        first, last = run
        db = self._db
        db.execute("CREATE OR REPLACE TEMP TABLE stage AS SELECT * FROM documents LIMIT 0")
        as_of: dt.datetime | None = None
        extended = False
        for page in self._pages(client, run, report, None if whole else since):
            extended = page.extended
            if as_of is None and page.as_of is not None:
                as_of = page.as_of.astimezone(dt.UTC).replace(tzinfo=None)
            self._stage(page.rows)
        if not extended:
            as_of = None  # a plain answer: the days get no cursor
        db.execute("BEGIN TRANSACTION")
        try:
            if whole:
                db.execute("DELETE FROM documents WHERE date_of_issue BETWEEN ? AND ?", [first, last])
            db.execute("DELETE FROM documents WHERE external_id IN (SELECT external_id FROM stage)")
            db.execute("INSERT INTO documents SELECT * FROM stage")
            if whole:
                db.execute("DELETE FROM days WHERE day BETWEEN ? AND ?", [first, last])
                db.execute(
                    "INSERT INTO days SELECT CAST(d AS DATE), CAST(? AS TIMESTAMP), CAST(? AS TIMESTAMP) "
                    "FROM generate_series(CAST(? AS DATE), CAST(? AS DATE), INTERVAL 1 DAY) AS t(d)",
                    [dt.datetime.now(dt.UTC).replace(tzinfo=None), as_of, first, last],
                )
                report.days_fetched += (last - first).days + 1
                report.fetched.append(run)
            elif as_of is not None:
                db.execute("UPDATE days SET as_of = ? WHERE day BETWEEN ? AND ?", [as_of, first, last])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        finally:
            db.execute("DROP TABLE IF EXISTS stage")

    def _stage(self, rows: list[dict[str, Any]]) -> None:
        """Add a page's rows to the staging table: each row goes in as its JSON text, and DuckDB reads the
        typed columns out of it (:data:`_FROM_JSON`; a later duplicate of an ``external_id`` wins)."""
        if not rows:
            return
        import pyarrow as pa

        with gc_paused():
            unique = {str(row.get("external_id")): row for row in rows}.values()
            texts = pa.array([orjson.dumps(row) for row in unique], type=pa.string())
        self._db.register("page_batch", pa.table({"doc": texts}))
        try:
            self._db.execute(f"INSERT INTO stage SELECT {_FROM_JSON}")
        finally:
            self._db.unregister("page_batch")

    # -- reading ----------------------------------------------------------------------------------

    def documents(self, start: dt.date | str, end: dt.date | str) -> DocumentList:
        """The documents issued from ``start`` to ``end`` as the tenant listed them (newest first), with
        notes linked to the documents they modify, as :meth:`DocumentsResource.list
        <connector.documents.DocumentsResource.list>` gives them."""
        first, last = coerce_date(start, "start"), coerce_date(end, "end")
        with self._lock:
            found = self._db.execute(
                "SELECT raw FROM documents WHERE date_of_issue BETWEEN ? AND ? "
                "ORDER BY date_of_issue DESC, id DESC NULLS LAST",  # a text key would triple the sort
                [first, last],
            ).fetchall()
        with gc_paused():
            loads = orjson.loads
            rows = [loads(raw) for (raw,) in found]
            link_notes(rows)
        return DocumentList(rows, url=f"local:{self.path}")

    def frame(self, start: dt.date | str, end: dt.date | str) -> pd.DataFrame:
        """The typed columns of the documents issued from ``start`` to ``end`` as a pandas DataFrame
        (amounts float64 there: :meth:`sql` keeps them DECIMAL), newest first, without ``raw`` nor the
        flags of how a row is read (``exact``, ``lists_notes``); those the file's version has."""
        first, last = coerce_date(start, "start"), coerce_date(end, "end")
        missing = {name for version, added in _ADDED.items() if version > self.schema for name in added}
        columns = ", ".join(name for name in _COLUMNS if name not in _FLAGS and name not in missing)
        return self.sql(
            f"SELECT {columns} FROM documents WHERE date_of_issue BETWEEN ? AND ? "
            "ORDER BY date_of_issue DESC, id DESC NULLS LAST",
            [first, last],
        )

    def sql(self, query: str, parameters: list[Any] | None = None) -> pd.DataFrame:
        """Any SQL over the tables ``documents`` (one row per document) and ``days`` (what was fetched),
        as a pandas DataFrame."""
        with self._lock:
            return self._db.execute(query, parameters or []).df()

    def relation(self, query: str) -> duckdb.DuckDBPyRelation:
        """A DuckDB relation of ``query`` (``.df()``, ``.arrow()``, ``.pl()``, further SQL)."""
        with self._lock:
            return self._db.sql(query)

    def count(self) -> int:
        """How many documents the store holds."""
        with self._lock:
            found = self._db.execute("SELECT count(*) FROM documents").fetchone()
        return int(found[0]) if found else 0

    def count_between(self, start: dt.date | str, end: dt.date | str) -> int:
        """How many documents the store holds issued from ``start`` to ``end``."""
        first, last = coerce_date(start, "start"), coerce_date(end, "end")
        with self._lock:
            found = self._db.execute(
                "SELECT count(*) FROM documents WHERE date_of_issue BETWEEN ? AND ?", [first, last]
            ).fetchone()
        return int(found[0]) if found else 0

    def fetched_days(self) -> list[dt.date]:
        """The days fetched so far, in order."""
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT day FROM days ORDER BY day").fetchall()]

    def forget(self, days: Iterable[dt.date]) -> None:
        """Fetch these days whole on the next sync (a document of theirs was changed by this program)."""
        chosen = sorted(set(days))
        if chosen:
            with self._lock:
                marks = ", ".join("?" for _ in chosen)
                self._db.execute(f"DELETE FROM days WHERE day IN ({marks})", chosen)

    # -- the analyst pages' queries (Documentos, Periodos, Inicio) --------------------------------

    @classmethod
    def holding(cls, rows: Iterable[dict[str, Any]]) -> LocalStore:
        """A store in memory holding ``rows`` (a tenant's list answer) in the same columns as a file's:
        the pages query a range read without the store (a real tenant's, ``store = false``) with the
        same SQL as a stored one."""
        store = cls(":memory:", memory_limit="256MB")
        with store._lock:
            store._db.execute("CREATE OR REPLACE TEMP TABLE stage AS SELECT * FROM documents LIMIT 0")
            store._stage(list(rows))
            store._db.execute("INSERT INTO documents SELECT * FROM stage")
            store._db.execute("DROP TABLE stage")
        return store

    def fetch(self, query: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of any SQL query as tuples (no DataFrame: the pages' aggregates are a few rows)."""
        with self._lock:
            return self._db.execute(query, list(parameters)).fetchall()

    def listed(self, where: str, parameters: Sequence[Any] = (), *, limit: int | None = None) -> DocumentList:
        """The documents matching ``where`` (an SQL condition over the ``documents`` columns) as the
        tenant listed them, newest first by date, series and numeric correlative, at most ``limit``."""
        order = "ORDER BY date_of_issue DESC, series DESC, correlative DESC NULLS LAST, id DESC"
        if limit is None:
            query = f"SELECT raw FROM documents WHERE {where} {order}"
        else:  # the newest rows' ids first: a sort that carried every row's raw text took 10 times longer
            query = (
                f"SELECT raw FROM documents WHERE rowid IN (SELECT rowid FROM documents WHERE {where} "
                f"{order} LIMIT {int(limit)}) {order}"
            )
        found = self.fetch(query, parameters)
        with gc_paused():
            loads = orjson.loads
            return DocumentList([loads(raw) for (raw,) in found], url=f"local:{self.path}")

    def reading(self, client: Client) -> StoredClient:
        """``client`` whose ``documents.list`` reads this store (synced first): for what takes a client,
        such as ``analysis.register.sales_register(store.reading(client), month)``."""
        return StoredClient(self, client)


class StoredDocuments:
    """``client.documents`` whose lists come from a :class:`LocalStore` (synced on each call; ``fresh``
    fetches the range whole); everything else goes to the client's own."""

    def __init__(self, store: LocalStore, client: Client) -> None:
        self._store, self._client = store, client

    def list(
        self, start: dt.date | str, end: dt.date | str, *, fresh: bool = False, details: bool = False
    ) -> DocumentList:
        """The range's documents from the store, after syncing it (``details`` are what the store keeps)."""
        self._store.sync(start, end, client=self._client, full=fresh)
        return self._store.documents(start, end)

    def download_xml(self, external_id: str) -> bytes:
        """The signed XML, from the tenant (the store keeps the lists only)."""
        return self._client.documents.download_xml(external_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client.documents, name)


class StoredClient:
    """A client whose document lists are read from a local store (see :meth:`LocalStore.reading`)."""

    def __init__(self, store: LocalStore, client: Client) -> None:
        self.documents = StoredDocuments(store, client)
        self._client = client
        #: The store and the tenant's client (the sales register reads the store with its own query).
        self.store, self.client = store, client

    @property
    def progress(self) -> Callable[[str], None] | None:
        """The client's progress callback (long waits and walks)."""
        return self._client.progress

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)
