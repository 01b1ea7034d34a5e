"""The service's database: engine and sessions for SQLite (embedded default) and PostgreSQL, write
transactions (one writer at a time on SQLite), and schema migrations."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import select
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DatabaseError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


#: Tests only: ``FACTURADOR_TEST_SQLITE_MAX_PAGES=N`` caps every SQLite connection's database at N pages
#: (``PRAGMA max_page_count``), so that a test sees the store fill up as a full disk would (SQLITE_FULL).
MAX_PAGES_ENV = "FACTURADOR_TEST_SQLITE_MAX_PAGES"
_MAX_PAGES = os.environ.get(MAX_PAGES_ENV) or None


def make_engine(url: str) -> Engine:
    """Create an engine; SQLite gets WAL, a busy timeout and foreign keys."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:" and not parsed.database.startswith("file:"):
            private_file(Path(parsed.database))
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record):  # pragma: no cover - exercised by every test
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            if _MAX_PAGES is not None:  # tests only: a store that fills up
                cursor.execute(f"PRAGMA max_page_count={int(_MAX_PAGES)}")
            cursor.close()

        return engine
    # a database host that stops answering fails a connection in seconds instead of holding the request;
    # TCP keepalives find a connection whose host or network went silent while it sat in the pool
    connect_args: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_SECONDS, **KEEPALIVES}
    connect_args = {name: value for name, value in connect_args.items() if name not in parsed.query}
    engine = create_engine(url, pool_size=10, max_overflow=20, connect_args=connect_args)
    if parsed.get_driver_name() == "psycopg":

        @event.listens_for(engine, "do_connect")
        def _answer_bound(_dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
            return _answer_bound_connection().connect(*cargs, **cparams)

    ping_when_idle(engine)
    return engine


#: libpq's TCP keepalives: an idle connection is probed after 10 s, and dropped after 3 probes unanswered.
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3}
#: The longest one exchange with PostgreSQL (a statement and its rows, a commit, a ping) may take before
#: the connection is given up as silent: a database that accepts but never answers (a hung server, a
#: network that drops packets) made requests hang for good. No statement of the service takes seconds.
ANSWER_SECONDS = 30.0
ANSWER_SECONDS_ENV = "FACTURADOR_DB_ANSWER_SECONDS"


def answer_seconds() -> float:
    """:data:`ANSWER_SECONDS`, or ``FACTURADOR_DB_ANSWER_SECONDS`` when set."""
    try:
        return max(float(os.environ.get(ANSWER_SECONDS_ENV) or ANSWER_SECONDS), 0.1)
    except ValueError:
        return ANSWER_SECONDS


@functools.cache
def _answer_bound_connection() -> Any:
    """psycopg's connection whose every exchange gives up after :func:`answer_seconds`: the connection is
    closed (its state unknown) and an ``OperationalError`` raised, which the service answers 503."""
    import psycopg
    from psycopg import errors

    class AnswerBoundConnection(psycopg.Connection):  # type: ignore[type-arg]
        def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
            bound = answer_seconds()
            try:
                return super().wait(gen, interval=interval, timeout=bound if timeout is None else timeout)
            except errors._WaitTimeout:
                self.pgconn.finish()
                raise psycopg.OperationalError(
                    f"the database did not answer within {bound:g} s (it went silent): connection closed"
                ) from None

    return AnswerBoundConnection


def _driver_errors() -> tuple[type[Exception], ...]:
    """The drivers' own errors for a database that cannot serve, as statements run on the DB-API cursor
    (:mod:`facturador.store.direct`) raise them, unwrapped by SQLAlchemy."""
    errors: list[type[Exception]] = [sqlite3.OperationalError]
    try:
        import psycopg
    except ImportError:  # pragma: no cover - PostgreSQL support not installed
        return tuple(errors)
    return (*errors, psycopg.OperationalError, psycopg.InterfaceError)


#: What a database that cannot serve now raises: unreachable, restarting, refusing connections, locked past
#: the busy timeout, out of disk, or every pooled connection busy for the pool's whole timeout; through
#: SQLAlchemy or straight from the driver (a backend terminated under a direct statement raised psycopg's
#: ``AdminShutdown`` and answered 500). Not a bug of the request: the service answers 503 with
#: :data:`RETRY_AFTER_SECONDS`.
UNAVAILABLE: tuple[type[Exception], ...] = (OperationalError, InterfaceError, PoolTimeout, *_driver_errors())


def storage_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the database's disk (or its size limit) is full: SQLite's SQLITE_FULL,
    PostgreSQL's "No space left on device"."""
    text = str(exc)
    return "database or disk is full" in text or "No space left on device" in text


#: How long a new PostgreSQL connection may take (libpq's ``connect_timeout``; the URL may set its own).
CONNECT_TIMEOUT_SECONDS = 10

#: The wait a client is told to leave before retrying when the database cannot serve.
RETRY_AFTER_SECONDS = 5

#: A pooled connection idle for longer than this is pinged before use (:func:`ping_when_idle`).
PING_IDLE_SECONDS = 1.0


def ping_when_idle(engine: Engine, idle_seconds: float = PING_IDLE_SECONDS) -> None:
    """Ping a pooled connection at checkout only when it sat idle in the pool for ``idle_seconds``; a dead
    one is replaced, as with ``pool_pre_ping``.

    ``pool_pre_ping`` pings at every checkout: three of an issue's ~19 round trips to PostgreSQL were
    pings of connections used a few milliseconds before. A connection used a moment ago is pinged only
    when its socket has something to read while no query is running: a server that restarts or ends the
    connection sends its last message and closes, and that shows there without a round trip (so a
    restart under load costs no request its answer); a connection idle for longer is always pinged (an
    idle-timeout or a network cut sends nothing)."""

    @event.listens_for(engine.pool, "connect")
    @event.listens_for(engine.pool, "checkin")
    def _checked_in(_dbapi_connection: Any, record: Any) -> None:  # a new connection needs no ping
        record.info["checked_in"] = time.monotonic()

    @event.listens_for(engine.pool, "checkout")
    def _checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if time.monotonic() - record.info.get("checked_in", float("-inf")) <= idle_seconds and not _has_news(
            dbapi_connection
        ):
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as exc:
            if engine.dialect.is_disconnect(exc, dbapi_connection, None):
                raise DisconnectionError() from exc
            raise


def _has_news(dbapi_connection: Any) -> bool:
    """Whether an idle connection's socket can be read (the server said something unasked: its goodbye
    before closing, a notice) or is gone; no round trip."""
    try:
        readable, _, _ = select.select([dbapi_connection.fileno()], [], [], 0)
    except (OSError, ValueError, AttributeError):  # closed already, or a driver without a socket
        return True
    return bool(readable)


def private_file(path: Path) -> None:
    """Create ``path`` if missing (an empty file is an empty SQLite database) and make it and its ``-wal``
    and ``-shm`` files readable by their owner only (0600).

    An existing file is changed by its path and never opened: closing any descriptor of a SQLite file
    drops every POSIX lock this process holds on it, so a connection already open in this process (the
    background sender beside a worker) would look absent to other processes, and the next one to close
    its last connection would checkpoint and delete the WAL under the server's feet."""
    if not path.parent.is_dir():
        return  # SQLite will report the missing directory
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(name, 0o600)


class StoreFileError(Exception):
    """The SQLite file of the store is not a whole SQLite database: the service does not start on it."""


#: What to do about a damaged store file (said with its path).
DAMAGED_STORE_ADVICE = (
    "The service will not start on it, nor create an empty store in its place. Restore the file from your "
    "last backup (stop every facturador process first), or run `sqlite3 <file> .recover` on a copy to "
    "salvage what it holds; only to start over with no documents, move the file away."
)


#: Set to 1 to start a new, empty SQLite store although the data directory holds tenants' keys
#: (``facturador serve --new-store``): see :func:`check_store_not_lost`.
NEW_STORE_ENV = "FACTURADOR_NEW_STORE"


#: The data directory's record of the tenants a SQLite store holds (its path and their slugs), so a store
#: file lost later is noticed (the tenants' keys and certificates live in the store itself).
STORE_MARKER = "store.json"


def _sqlite_path(database_url: str) -> Path | None:
    """The file of a SQLite ``database_url`` (None for another database, or one in memory)."""
    database = make_url(database_url).database if database_url.startswith("sqlite") else None
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def remember_tenant(database_url: str, data_dir: Path, slug: str) -> None:
    """Note in ``data_dir``'s :data:`STORE_MARKER` that the SQLite store of ``database_url`` holds tenant
    ``slug`` (nothing for PostgreSQL, whose loss the server itself would show)."""
    path = _sqlite_path(database_url)
    if path is None:
        return
    marker = data_dir / STORE_MARKER
    try:
        known = orjson.loads(marker.read_bytes()) if marker.is_file() else {}
    except orjson.JSONDecodeError:
        known = {}
    found = known.get("stores") if isinstance(known, dict) else None
    stores: dict[str, Any] = found if isinstance(found, dict) else {}
    slugs = set(stores.get(str(path.resolve())) or []) | {slug}
    stores[str(path.resolve())] = sorted(slugs)
    temporary = marker.with_name(marker.name + ".tmp")
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # private, as the data is
    with os.fdopen(handle, "wb") as out:
        out.write(orjson.dumps({"stores": stores}, option=orjson.OPT_INDENT_2))
    os.replace(temporary, marker)


def _remembered(path: Path, data_dir: Path) -> list[str]:
    """The tenants :func:`remember_tenant` noted for the store file ``path``."""
    marker = data_dir / STORE_MARKER
    try:
        known = orjson.loads(marker.read_bytes()) if marker.is_file() else {}
    except (OSError, orjson.JSONDecodeError):
        return []
    stores = known.get("stores") if isinstance(known, dict) else None
    found = stores.get(str(path.resolve())) if isinstance(stores, dict) else None
    return [str(slug) for slug in found] if isinstance(found, list) else []


def check_store_not_lost(database_url: str, data_dir: Path) -> None:
    """Raise :class:`StoreFileError` when the store's SQLite file is missing (or empty) while ``data_dir``
    holds tenants' folders (their keys and certificates): those tenants' store was there and is gone (a
    deleted file, a wrong path, a half-restored backup), and starting would make a new empty one in its
    place without a word. :data:`NEW_STORE_ENV` set to 1 starts the new store anyway."""
    path = _sqlite_path(database_url)
    if path is None or (path.exists() and path.stat().st_size > 0):
        return
    tenants = data_dir / "tenants"  # an earlier release kept each tenant's keys in a folder of its own
    folders = (
        {folder.name for folder in tenants.iterdir() if folder.is_dir() and any(folder.iterdir())}
        if tenants.is_dir()
        else set()
    )
    slugs = sorted(folders | set(_remembered(path, data_dir)))
    if not slugs or os.environ.get(NEW_STORE_ENV, "").strip() == "1":
        return
    shown = ", ".join(slugs[:5]) + (f" and {len(slugs) - 5} more" if len(slugs) > 5 else "")
    state = "is empty" if path.exists() else "is missing"
    raise StoreFileError(
        f"{path} {state}, but {data_dir} knows {len(slugs)} tenant(s) kept in it ({shown}): the store they "
        "belong to is gone. The service will not start a new, empty store in its place. Restore the file "
        "from your last backup (stop every facturador process first), or point --database/--data-dir at "
        f"where it is; only to start over with no documents beside those keys, run with --new-store (or "
        f"{NEW_STORE_ENV}=1)."
    )


def check_sqlite_file(engine: Engine) -> None:
    """Raise :class:`StoreFileError` naming the file when the store's SQLite file is another kind of file,
    or shorter than its own header says (cut short by a copy or a disk; checked when its WAL is empty).
    An absent or empty file is a new store."""
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        with engine.connect() as connection:
            page_size = int(connection.exec_driver_sql("PRAGMA page_size").scalar_one())
            pages = int(connection.exec_driver_sql("PRAGMA page_count").scalar_one())
    except DatabaseError as exc:
        reason = str(exc.orig) if exc.orig is not None else str(exc)
        what = "is not a SQLite database" if "not a database" in reason else "is damaged or truncated"
        raise StoreFileError(f"{path} {what} ({reason}). {DAMAGED_STORE_ADVICE}") from None
    finally:
        engine.dispose()
    wal = path.with_name(f"{path.name}-wal")
    size, expected = path.stat().st_size, page_size * pages
    if size < expected and (not wal.exists() or wal.stat().st_size == 0):
        raise StoreFileError(
            f"{path} is truncated: {size} bytes where its header counts {pages} pages of {page_size} "
            f"({expected} bytes). {DAMAGED_STORE_ADVICE}"
        )


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def upgrade(engine: Engine) -> None:
    """Create or migrate the schema to the latest Alembic revision."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


class RequestWrites:
    """What the database did for the request being served: ``committed`` once one of its write
    transactions committed, ``unknown`` when the database stopped answering during a commit. A 503 says
    "nothing was saved" only when neither holds."""

    def __init__(self) -> None:
        self.committed = False
        self.unknown = False

    @property
    def may_have_saved(self) -> bool:
        return self.committed or self.unknown


_REQUEST_WRITES: ContextVar[RequestWrites | None] = ContextVar("request_writes", default=None)


def watch_request_writes() -> RequestWrites:
    """Start watching the writes of the request served in this context (its worker threads included)."""
    writes = RequestWrites()
    _REQUEST_WRITES.set(writes)
    return writes


def request_writes() -> RequestWrites | None:
    """The writes of the request served in this context (``None`` outside a request)."""
    return _REQUEST_WRITES.get()


class Database:
    """One database of the service: its engine, sessions and write transactions.

    ``writer_lock`` is the file that orders writers across processes on SQLite (see :class:`WriterQueue`);
    PostgreSQL needs none.
    """

    def __init__(self, url: str, *, writer_lock: Path, migrate: bool = True):
        self.engine = make_engine(url)
        if is_sqlite(self.engine):
            check_sqlite_file(self.engine)
        if migrate:
            upgrade(self.engine)
        self.sessions = make_sessionmaker(self.engine)
        self.is_sqlite = is_sqlite(self.engine)
        #: What the driver raises for a unique or foreign key violation on the DB-API cursor.
        self.integrity_error: type[Exception] = self.engine.dialect.loaded_dbapi.IntegrityError
        self._write_lock: contextlib.AbstractContextManager[Any] = (
            WriterQueue(writer_lock) if self.is_sqlite else contextlib.nullcontext()
        )
        self._reader = (
            self.engine if self.is_sqlite else self.engine.execution_options(isolation_level="AUTOCOMMIT")
        )

    def session(self) -> Session:
        return self.sessions()

    def reading(self) -> contextlib.AbstractContextManager[Connection]:
        """A connection for reads outside a write transaction, each statement reading what is committed.

        On PostgreSQL it is in autocommit: no BEGIN and ROLLBACK round trips around the statements, and
        psycopg keeps the statements it prepared on that connection (a ROLLBACK makes it forget them all,
        so one read between two issues kept every issuing statement from ever being prepared)."""
        return self._reader.connect()

    @contextlib.contextmanager
    def writing(self) -> Iterator[Connection]:
        """A connection in a write transaction (committed on success, rolled back on error).

        On SQLite writers queue first on a :class:`WriterQueue`: SQLite allows one writer at a time and
        its busy handler polls with growing sleeps, so queueing on a lock is fairer and much faster.
        The request's :class:`RequestWrites` learns of a committed write, and of a commit the database
        stopped answering during (its outcome unknown).
        """
        writes = _REQUEST_WRITES.get()
        committing = False
        try:
            with self._write_lock, self.engine.begin() as connection:
                yield connection
                committing = True
        except UNAVAILABLE:
            if committing and writes is not None and not self.is_sqlite:  # SQLite's failed commit rolled back
                writes.unknown = True
            raise
        if writes is not None:
            writes.committed = True

    def writing_one(self) -> contextlib.AbstractContextManager[Connection]:
        """A connection for a write that is one statement on PostgreSQL: there in autocommit, the
        statement its own transaction, without the BEGIN and COMMIT round trips; on SQLite the write
        transaction of :meth:`writing` (where the same write may take several statements)."""
        if self.is_sqlite:
            return self.writing()
        return self._reader.connect()

    def dispose(self) -> None:
        self.engine.dispose()


class WriterQueue:
    """One writer at a time across the threads and the worker processes sharing a SQLite database.

    A thread lock orders this process's writers; an ``flock`` on a file beside the database orders the
    processes. Both wake the next writer as soon as the lock is released (no polling).
    """

    def __init__(self, path: Path):
        self.path = path
        self._thread_lock = threading.Lock()
        self._fd: int | None = None

    def __enter__(self) -> WriterQueue:
        self._thread_lock.acquire()
        try:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
                os.fchmod(self._fd, 0o600)  # a lock file left by an older version may be 0644
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        except BaseException:
            self._thread_lock.release()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._thread_lock.release()
