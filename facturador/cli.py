"""The ``facturador`` command: serve the API, manage tenants and series, run the demo.

This module is the composition point: it alone puts the service together with the connector, the demo
(:mod:`demo.seeding`, which issues its data through the connector) and the dashboard; the rest of
``facturador`` imports none of them."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from facturador.domain.send_policy import JOB_LEASE_SECONDS
from facturador.store.secrets import SECRET_NAMES

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
STOP_TIMEOUT = 30.0  # seconds a child process gets to stop after SIGTERM before it is killed
#: Seconds a uvicorn worker process may take to answer its supervisor's ping (start-up imports included).
#: uvicorn's 5 s restarted workers forever on a loaded machine while they were still importing; but a
#: worker killed between a ping and its answer blocks the supervisor (no restart, no SIGTERM) this long.
WORKER_HEALTHCHECK_SECONDS = 20


DATA_DIR_HELP = (
    "Directory for the SQLite database, certificates and files (env FACTURADOR_DATA_DIR; default: "
)
DATA_DIR_HELP += "the .facturador/ of the demo in this folder or above it, else the user's data folder)."
DATABASE_HELP = (
    "SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db (env FACTURADOR_DATABASE_URL). "
    "Default: SQLite in the data directory."
)


def storage_options(
    command: Callable[..., Any] | None = None, *, read_only: Callable[[dict[str, Any]], bool] | None = None
) -> Any:
    """Add ``--data-dir`` and ``--database`` to a subcommand and hand it resolved ``Settings``
    (:func:`resolve_storage`). ``read_only`` tells from the command's arguments whether it only reads:
    then it creates nothing (no folder, database nor key) and fails saying where it looked when there is
    no data."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @click.option("--data-dir", type=click.Path(file_okay=False), help=DATA_DIR_HELP)
        @click.option("--database", help=DATABASE_HELP)
        @functools.wraps(command)
        def wrapper(*args: Any, data_dir: str | None, database: str | None, **kwargs: Any) -> Any:
            reading = read_only is not None and read_only(kwargs)
            return command(*args, settings=resolve_storage(data_dir, database, read_only=reading), **kwargs)

        return wrapper

    return decorate if command is None else decorate(command)


def resolve_storage(data_dir: str | None, database: str | None, *, read_only: bool = False) -> Any:
    """The settings of a command: ``--data-dir`` and ``--database`` given after the subcommand, else
    before it (``facturador --data-dir X tenant list``), else FACTURADOR_DATA_DIR and
    FACTURADOR_DATABASE_URL, else the demo's ``.facturador/`` in the working folder or above it (said on
    stderr), else the user's data folder."""
    from facturador.config import (
        DATA_DIR_ENV,
        DATABASE_URL_ENV,
        Settings,
        project_data_dir,
        user_data_directory,
    )

    root = click.get_current_context().find_root().params
    data_dir = data_dir or root.get("data_dir")
    database = database or root.get("database")
    looked: list[str] = []
    if data_dir:
        looked.append(f"{data_dir} (--data-dir)")
    elif os.environ.get(DATA_DIR_ENV):
        looked.append(f"{os.environ[DATA_DIR_ENV]} ({DATA_DIR_ENV})")
    else:
        found = project_data_dir(Path.cwd())
        if found is not None:
            data_dir = str(found)
            click.echo(f"Data directory: {found} (the demo's, found from {Path.cwd()})", err=True)
        else:
            looked.append(f"a .facturador/ in {Path.cwd()} and the folders above it")
            looked.append(f"{user_data_directory()} (the default; {DATA_DIR_ENV} is not set)")
    settings = Settings.resolve(data_dir, database, create=not read_only)
    url = database or os.environ.get(DATABASE_URL_ENV)
    if read_only and not url and not (settings.data_dir / "facturador.db").is_file():
        raise click.ClickException(
            "no facturador data found (this command only reads, so it creates none); looked in "
            + ", then ".join(looked)
            + ". Start the demo (bash scripts/demo.sh) or `facturador serve`, or name the data with "
            "--data-dir (or FACTURADOR_DATA_DIR)."
        )
    return settings


def _context(settings: Any) -> Any:
    from facturador.context import ServiceContext
    from facturador.store.db import StoreFileError
    from facturador.store.secrets import SecretKeyError

    try:
        return ServiceContext(settings)
    except (SecretKeyError, StoreFileError) as exc:
        raise click.ClickException(str(exc)) from exc


def tenant_base_url(slug: str, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> str:
    return f"http://{host}:{port}/t/{slug}"


def served_base_url(settings: Any, slug: str) -> str:
    """The tenant's base URL on the services running on this data directory (the addresses they were
    started with, each node's), or on the default address, said so, when none runs."""
    from facturador.config import ServiceAddress

    running = ServiceAddress.running(settings.data_dir)
    if not running:
        return f"{tenant_base_url(slug)} (the default address: no service runs on this data directory)"
    first, *others = running
    also = ", ".join(tenant_base_url(slug, other.host, other.port) for other in others)
    return tenant_base_url(slug, first.host, first.port) + (f" (also {also})" if also else "")


#: The form of the log lines on stderr (serve and worker).
LOG_FORMAT_OPTION = click.option(
    "--log-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    envvar="FACTURADOR_LOG_FORMAT",
    help="text, or json: one JSON object a line (time, level, logger, message, request_id, and the access "
    "line's method, path, status, duration_ms), for a log collector (env FACTURADOR_LOG_FORMAT).",
)


#: How long a worker holds a job; it must outlast the longest sending (time-out times tries).
LEASE_OPTION = click.option(
    "--lease",
    default=JOB_LEASE_SECONDS,
    show_default=True,
    type=click.FloatRange(min=1),
    envvar="FACTURADOR_JOB_LEASE_SECONDS",
    help="Seconds a dead worker's job waits before another takes it (renewed every third while it works).",
)


@click.group()
@click.version_option(package_name="facturador-kit")
@click.option("--data-dir", type=click.Path(file_okay=False), help=DATA_DIR_HELP + " For every subcommand.")
@click.option("--database", help=DATABASE_HELP + " For every subcommand.")
def main(data_dir: str | None, database: str | None) -> None:
    """facturador-kit: Peruvian electronic invoicing service, connector and tools.

    --data-dir and --database go before the subcommand or after it (after it, they win)."""


@main.command()
@storage_options
@click.option("--host", default=DEFAULT_HOST, show_default=True)
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=int)
@click.option("--workers", default=1, show_default=True, type=int, help="Server processes.")
@click.option("--log-level", default="warning", show_default=True)
@click.option(
    "--send-pending-every",
    default=30.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds between passes of the background worker (pending sends, ticket polls; 0: none). One "
    "worker runs in this process, whatever --workers says.",
)
@click.option(
    "--worker/--no-worker",
    "with_worker",
    default=True,
    show_default=True,
    help="Run the background worker in this process; --no-worker for a web-only node beside a "
    "`facturador worker` or other nodes.",
)
@LEASE_OPTION
@LOG_FORMAT_OPTION
@click.option(
    "--access-log/--no-access-log",
    default=True,
    show_default=True,
    help="One line per request (method, path with tokens redacted, status, duration, request id), at INFO "
    "whatever --log-level says.",
)
@click.option(
    "--new-store",
    is_flag=True,
    help="Start a new, empty SQLite store although the data directory holds tenants' keys (the service "
    "refuses to otherwise: their store was deleted or moved; restore it from a backup instead).",
)
@click.option(
    "--forwarded-allow-ips",
    default="127.0.0.1",
    show_default=True,
    envvar="FACTURADOR_FORWARDED_ALLOW_IPS",
    help="Addresses (comma-separated, CIDR allowed, * for any) of the proxies whose X-Forwarded-Proto, "
    "X-Forwarded-For and Forwarded headers are believed: behind a TLS proxy, links come out https://. "
    "A request from any other address keeps its own scheme and client address.",
)
def serve(
    settings: Any,
    host: str,
    port: int,
    workers: int,
    log_level: str,
    send_pending_every: float,
    with_worker: bool,
    lease: float,
    log_format: str,
    access_log: bool,
    new_store: bool,
    forwarded_allow_ips: str,
) -> None:
    """Serve every tenant: by its host name and at http://HOST:PORT/t/SLUG.

    Facturas and notes left registered (a crash before their sending, an authority outage) are sent in
    the background, with growing waits between attempts, and tickets are asked about, through the job
    queue in the database: any number of nodes on one PostgreSQL share that work (see ``facturador
    worker``)."""
    import threading

    import uvicorn

    ensure_port_free(host, port, "the service", "--port")
    metrics_directory(settings.data_dir, port)  # before the metrics are first imported, here too

    from facturador.app import log_config
    from facturador.config import ServiceAddress
    from facturador.domain.pending import run_worker

    if new_store:  # the store check at start lets a new, empty store be made beside tenants' keys
        from facturador.store.db import NEW_STORE_ENV

        os.environ[NEW_STORE_ENV] = "1"
    context = _context(settings)  # creates or migrates the schema once, before the workers start
    context.engine.dispose()
    os.environ.update(settings.export())
    stop = threading.Event()
    if send_pending_every > 0 and with_worker:
        _log_pending_to_stderr(log_level, log_format)
        sender = threading.Thread(
            target=run_worker,
            args=(context, send_pending_every, stop),
            kwargs={"lease_seconds": lease},
            name="background-worker",
            daemon=True,
        )
        sender.start()
    click.echo(f"Serving facturador on http://{host}:{port} (tenants at /t/<slug>, OpenAPI at /docs)")
    address = ServiceAddress(host, port, os.getpid())
    address.keep(settings.data_dir)
    os.umask(0o077)  # what the processes write from here on (the request metrics' files) is private too
    try:
        uvicorn.run(
            "facturador.app:app_from_env",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level=log_level,
            log_config=log_config(log_level, log_format, access_log),
            access_log=False,  # the service's own access line (facturador.logs.AccessLog) instead
            timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS,
            proxy_headers=True,
            forwarded_allow_ips=forwarded_allow_ips,
        )
    finally:
        stop.set()
        address.forget(settings.data_dir)
        context.engine.dispose()


def metrics_directory(data_dir: Path, port: int) -> Path | None:
    """Point ``PROMETHEUS_MULTIPROC_DIR`` (unless the operator set it) at an empty folder of this node's
    own, ``metrics/<host>-<port>/`` in the data directory, where every worker process of the node writes
    its request metrics for ``/metrics`` to add up; the figures of the node's previous run are removed.
    Nodes sharing a data directory each have their own folder: one starting never empties another's."""
    import shutil
    import socket

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    folder = Path(data_dir) / "metrics" / f"{socket.gethostname()}-{port}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # private, as the whole data directory
    folder.mkdir(mode=0o700, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    return folder


def _log_pending_to_stderr(level: str, fmt: str = "text") -> None:
    """Show the background worker's log lines (at ``level`` and above) on stderr, in ``fmt``, once."""
    import logging

    from facturador.logs import stderr_handler

    logger = logging.getLogger("facturador.pending")
    logger.handlers = [stderr_handler(fmt)]
    logger.setLevel(level.upper())
    logger.propagate = False


@main.command()
@storage_options
@click.option(
    "--every",
    default=1.0,
    show_default=True,
    type=click.FloatRange(min=0.05),
    help="Seconds between passes over the queue.",
)
@LEASE_OPTION
@click.option("--once", is_flag=True, help="One pass (enqueue what is due, do every job), then exit.")
@click.option("--log-level", default="info", show_default=True)
@LOG_FORMAT_OPTION
def worker(settings: Any, every: float, lease: float, once: bool, log_level: str, log_format: str) -> None:
    """Do the background work (pending sends, ticket polls, their retries) apart from the web nodes.

    Takes jobs from the queue in the database under leases: run as many as needed, on any host that
    reaches it, beside ``facturador serve --no-worker`` nodes (or nodes with their own worker). SIGTERM
    or Ctrl+C stops it after the job in hand; a worker killed outright leaves its job to be taken
    again when its lease runs out."""
    import signal
    import threading

    from facturador.domain.pending import Worker, run_worker

    context = _context(settings)
    _log_pending_to_stderr(log_level, log_format)
    try:
        if once:
            done = Worker(context, lease_seconds=lease).run_once()
            click.echo(f"{done} job(s) done.")
            return
        stop = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
        click.echo(f"Worker taking jobs every {every:g} s (lease {lease:g} s); SIGTERM stops it.")
        run_worker(context, every, stop, lease_seconds=lease)
    finally:
        context.engine.dispose()


@main.command()
@storage_options(read_only=lambda _: True)
@click.option("--limit", default=20, show_default=True, type=click.IntRange(0, 10_000), help="Jobs listed.")
def jobs(settings: Any, limit: int) -> None:
    """Show what the service owes and the background work in hand: the documents pending (when each was
    issued, SUNAT's last day for it, how long it is owed, its attempts), the tickets SUNAT has not
    answered, then per kind how many jobs are queued, leased (a worker is doing them) or expired (their
    worker died; the next worker takes them again), and the jobs in hand or in trouble (taken more than
    once, with an error) and the longest due. At most LIMIT lines of each list."""
    from facturador.domain.email_delivery import describe_deliveries
    from facturador.store.jobs import JobQueue, utc_now
    from facturador.store.operations import lima_today, owed

    context = _context(settings)
    now = utc_now()
    try:
        found = owed(context.db, now)
        listed = JobQueue(context.db).listing(limit)
        mailed = describe_deliveries(context, limit)
    finally:
        context.engine.dispose()
    for line in mailed:
        click.echo(line)
    if not found.documents and not found.tickets and not found.jobs:
        click.echo("Nothing is owed: no document pending, no ticket in process, no job queued.")
        return
    today = lima_today(now)
    late = found.past_deadline(today)
    click.echo(
        f"Documents pending: {len(found.documents)}"
        + (f", {len(late)} past SUNAT's deadline" if late else "")
        + (f" (the oldest owed for {_age(now - found.documents[0].created_at)})" if found.documents else "")
    )
    for document in found.documents[:limit]:
        deadline = f"SUNAT's last day {document.deadline}" + (" PAST" if document.deadline < today else "")
        last = f", last answer {document.last_code}" if document.last_code else ""
        click.echo(
            f"  {document.number} ({document.tenant}) issued {document.date_of_issue}, {deadline}, owed for "
            f"{_age(now - document.created_at)}, {document.attempts} attempt(s){last}, next attempt "
            + (
                "due now"
                if document.next_send_at <= now
                else f"{document.next_send_at:%Y-%m-%d %H:%M:%S} UTC"
            )
        )
    click.echo(
        f"Tickets owed: {len(found.tickets)}"
        + (f" (the oldest owed for {_age(now - found.tickets[0].created_at)})" if found.tickets else "")
    )
    for ticket in found.tickets[:limit]:
        error = f", last error {ticket.error}" if ticket.error else ""
        click.echo(
            f"  {ticket.identifier} ({ticket.tenant}) ticket {ticket.ticket}, owed for "
            f"{_age(now - ticket.created_at)}, asked {ticket.attempts} time(s){error}, next ask "
            + ("due now" if ticket.next_poll_at <= now else f"{ticket.next_poll_at:%Y-%m-%d %H:%M:%S} UTC")
        )
    if not found.jobs:
        click.echo("Jobs: none queued (the next worker pass enqueues what is due).")
        return
    for kind in sorted(found.jobs):
        counts = found.jobs[kind]
        click.echo(
            f"Jobs {kind}: {counts['queued']} queued, {counts['leased']} leased, {counts['expired']} expired"
        )
    if not listed:
        return
    click.echo("")
    header = f"{'id':>8}  {'kind':<10} {'target':>8}  {'due (UTC)':<19}  {'taken':>5}  {'age':>9}"
    click.echo(f"{header}  held by / last error")
    for job in listed:
        if job.lease_owner is not None and job.lease_until is not None:
            left = (job.lease_until - now).total_seconds()
            held = f"{job.lease_owner} ({'expired' if left < 0 else f'{left:.0f} s left'})"
        else:
            held = ""
        error = f"  {job.last_error}" if job.last_error else ""
        click.echo(
            f"{job.id:>8}  {job.kind:<10} {job.target_id:>8}  {job.run_at:%Y-%m-%d %H:%M:%S}  "
            f"{job.taken:>5}  {_age(now - job.run_at):>9}  {held}{error}".rstrip()
        )


def _age(elapsed: Any) -> str:
    """A duration as an operator reads it: ``45 s``, ``12 min``, ``3 h 5 min``, ``2 d 4 h``."""
    seconds = max(int(elapsed.total_seconds()), 0)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        return f"{seconds // 3600} h {seconds % 3600 // 60} min"
    return f"{seconds // 86400} d {seconds % 86400 // 3600} h"


@main.command()
@storage_options
def migrate(settings: Any) -> None:
    """Migrate the database's schema to this release's newest revision, and say from which.

    The explicit step of an upgrade: run it once, from one host, before starting the new release's nodes
    (a node or command that opens the database migrates it too; nodes on a schema behind their release
    answer 503 at /ready until it is done). Certificates and keys an earlier release kept in this data
    directory's tenants/<slug>/ are copied into the database (the files are left for that release's nodes
    still running; this release never reads them again)."""
    from facturador.store.db import UNAVAILABLE, make_engine, upgrade
    from facturador.store.operations import schema_revision

    engine = make_engine(settings.database_url)
    try:
        before = schema_revision(engine)
        upgrade(engine)
        after = schema_revision(engine)
    except UNAVAILABLE as exc:
        raise click.ClickException(f"The database does not answer: {str(exc).splitlines()[0]}") from exc
    finally:
        engine.dispose()
    if before == after:
        click.echo(f"The schema is at the newest revision already ({after}).")
    else:
        click.echo(f"Schema migrated from revision {before or 'none (empty database)'} to {after}.")
    if (settings.data_dir / "tenants").is_dir():  # an earlier release's certificate files, copied once
        context = _context(settings)
        try:
            moved = context.moved_identities
        finally:
            context.engine.dispose()
        for slug in moved:
            click.echo(
                f"{slug}: certificate and key copied from {settings.tenant_dir(slug)} into the database."
            )


@main.command()
@storage_options(read_only=lambda _: True)
@click.argument("destination", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--with-secret-key",
    is_flag=True,
    help="Copy the data directory's secret.key into the backup too (default: not; keep it apart).",
)
def backup(settings: Any, destination: Path, with_secret_key: bool) -> None:
    """Back up the store into DESTINATION (a new folder), safe while nodes serve: a SQLite database
    through SQLite's online backup API (a consistent snapshot), and the data directory's own files.

    A PostgreSQL database is backed up with pg_dump (docs/deploying.md); this copies the data directory
    only. The secret key is not copied unless --with-secret-key: without it nothing restored can read
    the tenants' secrets and signing keys, so keep it, apart."""
    from facturador.store.backup import BackupError, back_up, sqlite_path
    from facturador.store.secrets import SECRET_KEY_ENV, Vault

    try:
        made = back_up(settings.data_dir, settings.database_url, destination, with_secret_key=with_secret_key)
    except BackupError as exc:
        raise click.ClickException(str(exc)) from exc
    if made.database is not None:
        click.echo(
            f"Database backed up to {made.database}: {made.documents} documents, schema {made.schema}."
        )
    else:
        click.echo(
            f"The database is not SQLite ({sqlite_path(settings.database_url) or 'a server'}): back it up "
            "with pg_dump (docs/deploying.md, «Backups and restore»)."
        )
    click.echo(f"Data directory entries copied: {', '.join(made.copied) or 'none'}.")
    key = (settings.data_dir / "secret.key").is_file() or os.environ.get(SECRET_KEY_ENV)
    if key and not with_secret_key:
        vault = Vault.open(settings.data_dir)
        click.echo(
            f"Not copied: the secret key (fingerprint {vault.fingerprint}, from {vault.source}). "
            "Keep it apart from this backup: a restore needs it to read the tenants' secrets and keys."
        )


@main.command("send-pending")
@storage_options(read_only=lambda arguments: bool(arguments["dry_run"]))
@click.option("--tenant", "slug", default=None, help="Only this tenant's documents.")
@click.option("--dry-run", is_flag=True, help="List the pending documents and send nothing.")
@click.option(
    "--force", is_flag=True, help="Send every pending document now, even before its next attempt time."
)
def send_pending(settings: Any, slug: str | None, dry_run: bool, force: bool) -> None:
    """Send once the facturas, notes, retentions and perceptions left registered (state 01) that the
    service owes the authority, and ask SUNAT about the due tickets of summaries.

    For cron, beside or instead of the background sender of ``facturador serve``. A document is due
    send_retry_seconds (a tenant setting, 60 by default) after it was issued, then after waits that
    double with each answer that leaves it pending (up to 30 minutes); --force ignores those times."""
    from facturador.domain.pending import PendingSender, TicketPoller
    from facturador.domain.send_policy import utc_now
    from facturador.domain.tenants import TenantError, get_tenant

    context = _context(settings)
    try:
        if slug is not None:
            with context.session() as session:
                get_tenant(session, slug)
        sender = PendingSender(context)
        now = utc_now()
        if dry_run:
            documents = sender.pending(tenant=slug)
            for document in documents:
                when = (
                    "due"
                    if force or document.due(now)
                    else f"next attempt {document.next_send_at:%Y-%m-%d %H:%M:%S} UTC"
                )
                last = f", last answer {document.last_code}" if document.last_code else ""
                click.echo(
                    f"{document.number} ({document.tenant}): {document.attempts} attempt(s){last}, {when}"
                )
            due = sum(1 for document in documents if force or document.due(now))
            click.echo(f"{len(documents)} pending, {due} due now (dry run: nothing sent).")
            tickets = TicketPoller(context).due(tenant=slug)
            if tickets:
                click.echo(f"{len(tickets)} ticket(s) of summaries to ask about (dry run: not asked).")
            return
        outcomes = sender.send_due(
            tenant=slug, force=force, report=lambda outcome: click.echo(outcome.describe())
        )
        TicketPoller(context).poll_due(tenant=slug, report=lambda polled: click.echo(polled.describe()))
        left = len(sender.pending(tenant=slug))
    except TenantError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        context.engine.dispose()
    settled = sum(outcome.settled for outcome in outcomes)
    click.echo(f"{len(outcomes)} sent: {settled} answered with a state, {left} still pending.")


@main.group()
def tenant() -> None:
    """Create and list companies."""


@tenant.command("create")
@storage_options
@click.argument("slug")
@click.option("--ruc", required=True, help="The company's RUC (11 digits, check digit verified).")
@click.option("--name", required=True, help="Legal name (razón social).")
@click.option("--trade-name", default="", help="Trade name (nombre comercial).")
@click.option("--address", default="", help="Fiscal address.")
@click.option("--ubigeo", default="", help="INEI district code of the fiscal address (6 digits).")
@click.option("--host", default=None, help="Host name this tenant answers on (besides /t/SLUG).")
@click.option("--token", default=None, help="API token to use instead of a generated one.")
@click.option(
    "--authority-mode",
    type=click.Choice(["test", "strict"]),
    default="test",
    show_default=True,
    help="test: behave like SUNAT's beta; strict: production-like registry checks.",
)
def tenant_create(settings: Any, slug: str, authority_mode: str, **fields: Any) -> None:
    """Create a company with its establishment, API token, certificate and default series."""
    from facturador.domain.tenants import TenantError, create_tenant

    context = _context(settings)
    try:
        with context.session() as session, session.begin():
            created = create_tenant(
                session, settings, slug, overrides={"authority_mode": authority_mode}, **fields
            )
    except TenantError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"Tenant {slug} created for RUC {created.tenant.ruc} ({created.tenant.name}).")
    click.echo("Series: F001 (01), B001 (03), FC01 BC01 (07), FD01 BD01 (08), NV01 (80)")
    click.echo(f"Base URL: {served_base_url(settings, slug)}")
    click.echo(f"Token: {created.token}")


@tenant.command("list")
@storage_options(read_only=lambda _: True)
def tenant_list(settings: Any) -> None:
    """List tenants with their RUC, host, settings, where they send and their certificate (secrets are
    shown as "set" or "not set", never their values)."""
    from sqlalchemy import select

    from facturador.domain.tenants import secrets_set
    from facturador.store.identities import stored_certificate
    from facturador.store.models import Tenant, tenant_settings

    context = _context(settings)
    with context.session() as session:
        tenants = list(session.scalars(select(Tenant).order_by(Tenant.slug)))
        if not tenants:
            click.echo("No tenants yet: create one with 'facturador tenant create'.")
        for row in tenants:
            options = tenant_settings(row)
            click.echo(
                f"{row.slug:<20} {row.ruc}  {row.name:<40} host={row.host or '-'}  "
                f"mode={options['authority_mode']}  base_url={served_base_url(settings, row.slug)}"
            )
            held = secrets_set(session, row.id)
            sending = options["sunat_sending"]
            where = {"ose": options["ose_url"], "simulator": "built in"}.get(sending) or (
                options["sunat_url"] or "SUNAT"
            )
            click.echo(
                f"{'':<20} sending={sending} ({where})  sol_user={options['sol_user'] or '-'}  "
                + "  ".join(f"{name}={'set' if name in held else 'not set'}" for name in sorted(SECRET_NAMES))
            )
            certificate = stored_certificate(session, row.id)
            if certificate is not None:
                kind = "self-signed, for the simulator" if certificate.self_signed else certificate.issuer
                click.echo(
                    f"{'':<20} certificate: {certificate.subject} ({kind}); expires "
                    f"{certificate.not_after:%d/%m/%Y}, in {certificate.days_left()} days"
                )


@tenant.command("secret")
@storage_options
@click.argument("slug")
@click.argument("name", type=click.Choice(sorted(SECRET_NAMES)))
@click.option(
    "--from-env",
    "variable",
    metavar="VARIABLE",
    default=None,
    help="Read the value from this environment variable instead of asking for it.",
)
@click.option("--clear", is_flag=True, help="Forget the secret.")
def tenant_secret(settings: Any, slug: str, name: str, variable: str | None, clear: bool) -> None:
    """Keep a tenant's secret NAME (its SOL password, the GRE client secret) encrypted in the database.

    The value is asked for without echo, or read from an environment variable (--from-env): never from
    the command line, where other users and the shell history would see it."""
    from facturador.domain.tenants import TenantError, set_secret

    value: str | None = None
    if not clear:
        if variable:
            value = os.environ.get(variable)
            if not value:
                raise click.ClickException(f"the environment variable {variable} is not set or empty")
        else:
            value = click.prompt(f"{name} of {slug}", hide_input=True, confirmation_prompt=True)
    context = _context(settings)
    try:
        with context.session() as session, session.begin():
            set_secret(session, context.vault, slug, name, value)
    except TenantError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{name} of {slug} {'forgotten' if clear else 'kept, encrypted'}.")


@tenant.command("certificate")
@storage_options
@click.argument("slug")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--password-env",
    "variable",
    metavar="VARIABLE",
    default=None,
    help="Read the file's password from this environment variable instead of asking for it.",
)
def tenant_certificate(settings: Any, slug: str, path: Path, variable: str | None) -> None:
    """Sign tenant SLUG's documents with the company's own certificate PATH (.pfx or .p12).

    The file is checked (password, RSA key of 2048 bits or more matching the certificate, valid today) and
    kept in the database, its key encrypted with the service's secret key; the password is not kept.
    Every node signs with it from its next document on."""
    from facturador.domain.tenants import TenantError, get_tenant
    from facturador.store.identities import CertificateError, import_certificate

    if variable:
        password = os.environ.get(variable)
        if password is None:
            raise click.ClickException(f"the environment variable {variable} is not set")
    else:
        password = click.prompt(f"Password of {path.name}", hide_input=True, default="", show_default=False)
    context = _context(settings)
    with context.session() as session:
        try:
            row = get_tenant(session, slug)
            info = import_certificate(session, row.id, path.read_bytes(), password, context.vault)
            session.commit()
        except TenantError as exc:
            raise click.ClickException(str(exc)) from exc
        except CertificateError as exc:
            raise click.ClickException(f"{path.name}: {exc}") from exc
    context.engine.dispose()
    click.echo(f"{slug} signs with {info.subject}, issued by {info.issuer}.")
    click.echo(f"Valid until {info.not_after:%d/%m/%Y} ({info.days_left()} days).")


@main.command("secret-key")
def secret_key() -> None:
    """Print a new secret key, for FACTURADOR_SECRET_KEY (every node of a deployment must share one)."""
    from facturador.store.secrets import Vault

    click.echo(Vault.new_key())


@tenant.command("set")
@storage_options
@click.argument("slug")
@click.argument("assignments", nargs=-1, required=True)
def tenant_set(settings: Any, slug: str, assignments: tuple[str, ...]) -> None:
    """Change tenant settings: KEY=VALUE ... (shipping_time_days, send_auto, authority_mode, ...)."""
    from facturador.domain.tenants import TenantError, parse_setting, update_settings

    changes = {}
    try:
        for assignment in assignments:
            key, sep, raw = assignment.partition("=")
            if not sep:
                raise TenantError(f"expected KEY=VALUE, got {assignment!r}")
            changes[key] = parse_setting(key, raw)
        context = _context(settings)
        with context.session() as session, session.begin():
            result = update_settings(session, slug, changes)
    except TenantError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(", ".join(f"{k}={v}" for k, v in sorted(result.items())))
    from facturador.domain.tenants import get_tenant
    from facturador.store.identities import stored_certificate

    with context.session() as session:
        certificate = stored_certificate(session, get_tenant(session, slug).id)
    if result["sunat_sending"] in ("production", "ose") and (certificate is None or certificate.self_signed):
        click.echo(
            f"Warning: {slug} signs with a self-signed certificate, which SUNAT refuses in production "
            "(2325): "
            f"import the company's certificate with 'facturador tenant certificate {slug} FILE.pfx'.",
            err=True,
        )


@tenant.command("smtp")
@storage_options
@click.argument("slug")
@click.option("--host", default=None, help="The SMTP server's host name.")
@click.option("--port", default=None, type=click.IntRange(1, 65535), help="Its port (587, 465, 25...).")
@click.option("--tls", default=None, type=click.Choice(["none", "starttls", "ssl"]), help="How it encrypts.")
@click.option("--user", default=None, help="The user to log in as (empty: no login).")
@click.option("--from", "sender", default=None, help="The sender's address (From).")
@click.option("--from-name", default=None, help="The sender's name (default: the company's name).")
@click.option("--cafile", default=None, help="A PEM of CAs to trust besides the system's.")
@click.option(
    "--password-env",
    "variable",
    metavar="VARIABLE",
    default=None,
    help="Read the SMTP password from this environment variable.",
)
@click.option("--password-prompt", is_flag=True, help="Ask for the SMTP password (without echo).")
@click.option("--clear-password", is_flag=True, help="Forget the SMTP password.")
def tenant_smtp(
    settings: Any, slug: str, variable: str | None, password_prompt: bool, **options: Any
) -> None:
    """Set tenant SLUG's SMTP server, for e-mailing documents to customers (docs/email.md).

    Only the options given change; with none, the current settings are shown. The password is kept
    encrypted like the SOL password and never printed; it is read from an environment variable or asked
    for, never taken from the command line."""
    from facturador.domain.email_delivery import configure_smtp

    clear = bool(options.pop("clear_password"))
    password = None
    if variable:
        password = os.environ.get(variable)
        if not password:
            raise click.ClickException(f"the environment variable {variable} is not set or empty")
    elif password_prompt:
        password = click.prompt(f"SMTP password of {slug}", hide_input=True, confirmation_prompt=True)
    names = {"sender": "smtp_from", "from_name": "smtp_from_name"}
    changes = {names.get(key, f"smtp_{key}"): value for key, value in options.items()}
    context = _context(settings)
    try:
        click.echo(configure_smtp(context, slug, changes, password, clear_password=clear))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        context.engine.dispose()


@main.group()
def series() -> None:
    """Manage numbering series."""


@series.command("add")
@storage_options
@click.argument("slug")
@click.argument("doc_type")
@click.argument("series_code", metavar="SERIES")
@click.option("--contingency", is_flag=True, help="A numeric contingency series such as 0001.")
def series_add(settings: Any, slug: str, doc_type: str, series_code: str, contingency: bool) -> None:
    """Register SERIES for DOC_TYPE (01, 03, 07, 08, ...) in tenant SLUG."""
    from facturador.domain.tenants import TenantError, add_series

    context = _context(settings)
    try:
        with context.session() as session, session.begin():
            row = add_series(session, slug, doc_type, series_code, contingency=contingency)
    except TenantError as exc:
        raise click.ClickException(str(exc)) from exc
    kind = "contingency series" if row.contingency else "series"
    click.echo(f"Added {kind} {row.number} for document type {row.document_type_id} to {slug}.")


@contextlib.contextmanager
def embedded_service(settings: Any, slug: str) -> Iterator[tuple[str, str]]:
    """Serve the data directory on a free loopback port for the duration of a command, with a temporary
    API user for ``slug`` (its token is revoked afterwards); yields the tenant's base URL and the token."""
    import socket
    import threading

    import uvicorn
    from sqlalchemy import select, update

    from facturador.app import create_app
    from facturador.domain.tenants import get_tenant, hash_token, new_token
    from facturador.store.models import Establishment, User

    context = _context(settings)
    token = new_token()
    with context.session() as session, session.begin():
        tenant = get_tenant(session, slug)
        establishment = session.scalar(select(Establishment).where(Establishment.tenant_id == tenant.id))
        assert establishment is not None
        user = User(
            tenant_id=tenant.id,
            establishment_id=establishment.id,
            name="seed (temporary)",
            token_hash=hash_token(token),
        )
        session.add(user)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(context), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/t/{slug}", token
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        with context.session() as session, session.begin():
            # the documents and summaries keep the user who issued them: revoke its token, keep the row
            session.execute(
                update(User)
                .where(User.token_hash == hash_token(token))
                .values(token_hash=hash_token(new_token()), name="seed (revoked)")
            )
        context.engine.dispose()


@contextlib.contextmanager
def backdating(settings: Any, slug: str) -> Iterator[None]:
    """Let a tenant take documents dated in the past for a while (for seeding history), each stamped
    (``created_at``) at its own issue date and time in Lima, with the authority answering tickets at
    once (summaries and voiding are seeded too), then restore."""
    from facturador.domain.tenants import get_tenant, update_settings
    from facturador.store.models import tenant_settings

    changes = {
        "restrict_receipt_date": False,
        "authority_check_deadlines": False,
        "authority_ticket_delay": 0.0,
        "history_stamps": True,
    }
    context = _context(settings)
    with context.session() as session, session.begin():
        saved = tenant_settings(get_tenant(session, slug))
        update_settings(session, slug, changes)
    try:
        yield
    finally:
        with context.session() as session, session.begin():
            update_settings(session, slug, {k: saved[k] for k in changes if k in saved})
        context.engine.dispose()


def run_seed(
    base_url: str, token: str, documents: int, days: int, seed_value: int, progress_file: Path | None = None
) -> Any:
    """Issue the seed documents through the API with a progress bar (on a terminal; else a line every
    tenth of the way), then declare and void some (the bar names the phase); returns the report. With
    ``progress_file``, how far it got is kept there for the dashboard, and the file removed at the end."""
    from tqdm import tqdm

    from connector import Client
    from dashboard.seeding import Progress, write_progress
    from demo.seeding import seed

    client = Client(base_url, token, cache=False, timeout=60)
    stage_name, done, written, tenths = "Issuing", 0, 0.0, 0

    def keep() -> None:
        nonlocal written
        if progress_file is not None:
            write_progress(progress_file, Progress(stage_name, done, documents))
            written = time.monotonic()

    try:
        with tqdm(total=documents, unit="doc", desc="Issuing", disable=None) as bar:

            def progress(count: int) -> None:
                nonlocal done, tenths
                bar.update(count - done)
                done = count
                if bar.disable and count * 10 // documents > tenths:  # no terminal: a line per tenth
                    tenths = count * 10 // documents
                    click.echo(f"Seeding: {count}/{documents} documents issued.")
                if time.monotonic() - written >= 1 or count == documents:
                    keep()

            def stage(name: str) -> None:
                nonlocal stage_name
                bar.set_description_str(name)
                stage_name = name
                if bar.disable and name != "Issuing":
                    click.echo(f"Seeding: {name.lower()}...")
                keep()

            keep()
            return seed(client, documents, days, seed=seed_value, progress=progress, stage=stage)
    finally:
        if progress_file is not None:
            progress_file.unlink(missing_ok=True)


@main.command("seed")
@storage_options
@click.argument("slug")
@click.option("--documents", default=500, show_default=True, type=click.IntRange(1, 200_000))
@click.option("--days", default=30, show_default=True, type=click.IntRange(1, 3650))
@click.option(
    "--seed", "seed_value", default=7, show_default=True, help="Random seed (same seed, same data)."
)
@click.option("--base-url", default=None, help="A running tenant base URL (default: an embedded server).")
@click.option("--token", envvar="FACTURADOR_TOKEN", default=None, help="Token for --base-url.")
def seed_command(
    settings: Any,
    slug: str,
    documents: int,
    days: int,
    seed_value: int,
    base_url: str | None,
    token: str | None,
) -> None:
    """Issue realistic documents for tenant SLUG over the last DAYS days, through the API."""
    from facturador.domain.tenants import TenantError

    if base_url and not token:
        raise click.ClickException("--base-url needs --token (or FACTURADOR_TOKEN)")
    try:
        with backdating(settings, slug):
            if base_url:
                from facturador.context import CACHE_SECONDS

                time.sleep(CACHE_SECONDS + 0.5)  # a running service re-reads tenant settings this often
                report = run_seed(base_url, token or "", documents, days, seed_value)
            else:
                with embedded_service(settings, slug) as (url, temporary):
                    report = run_seed(url, temporary, documents, days, seed_value)
    except TenantError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(report.summary())


DEMO_SLUG = "demo"
DEMO_RUC = "20100066603"
DEMO_TOKEN = "demo-token-facturador-kit-0123456789abcdef"


DEMO_NAME = "EMPRESA DEMO S.A.C."
#: Where ``facturador demo`` keeps how far its seeding got, in the data directory, while it seeds.
SEEDING_PROGRESS = "seeding.json"
#: The block plugins the demo tenant turns on, so the Issue form shows their sections.
DEMO_PLUGINS = (
    "plugins.allowances",
    "plugins.advances",
    "plugins.payments",
    "plugins.perception",
    "plugins.retention",
    "plugins.line_allowances",
    "plugins.item_attributes",
    "plugins.references",
    "plugins.cargo_transport",
    "plugins.isc",
)


def ensure_demo_tenant(settings: Any) -> bool:
    """Create the demo tenant if missing; True when it has no documents yet."""
    from sqlalchemy import func, select

    from facturador.domain.tenants import create_tenant
    from facturador.store.models import Document, Tenant

    context = _context(settings)
    with context.session() as session, session.begin():
        tenant_id = session.scalar(select(Tenant.id).where(Tenant.slug == DEMO_SLUG))
        if tenant_id is None:
            created = create_tenant(
                session,
                settings,
                DEMO_SLUG,
                ruc=DEMO_RUC,
                name=DEMO_NAME,
                trade_name="Demo",
                address="Av. Javier Prado Este 123, San Isidro",
                ubigeo="150131",
                token=DEMO_TOKEN,
                overrides={"authority_mode": "strict"},
            )
            tenant_id = created.tenant.id
        empty = not session.scalar(select(func.count(Document.id)).where(Document.tenant_id == tenant_id))
    context.engine.dispose()
    return bool(empty)


def write_tenants_file(settings: Any, base_url: str) -> Any:
    """A tenants TOML in the data directory pointing the dashboard at the demo tenant."""
    path = settings.data_dir / "tenants.toml"
    path.write_text(
        f'[tenants.{DEMO_SLUG}]\nname = "{DEMO_NAME}"\nbase_url = "{base_url}"\ntoken = "{DEMO_TOKEN}"\n'
        f"plugins = {json.dumps(list(DEMO_PLUGINS))}\n",
        encoding="utf-8",
    )
    path.chmod(0o600)
    return path


def ensure_port_free(host: str, port: int, what: str, option: str) -> None:
    """Fail at once, naming the port, when HOST:PORT cannot be listened on (another process holds it).

    The probe binds as uvicorn and Streamlit do (``SO_REUSEADDR``, so a port whose old connections linger
    in TIME_WAIT counts as free) and closes at once; ``host`` "" means every interface."""
    import errno
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        if os.name != "nt":  # on Windows SO_REUSEADDR would let the bind succeed on a taken port
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            where = f"port {port} on {host}" if host else f"port {port}"
            if exc.errno == errno.EADDRINUSE:
                raise click.ClickException(
                    f"{where} is already in use, so {what} cannot start: stop the process that holds it "
                    f"or choose another port with {option}"
                ) from None
            raise click.ClickException(f"{what} cannot listen on {where}: {exc.strerror}") from None


@contextlib.contextmanager
def child_processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """A block that starts child processes (append them to the yielded list) and stops them however it
    ends: SIGTERM and SIGHUP end it like Ctrl+C does, and then every child still running gets SIGTERM
    (SIGKILL after ``STOP_TIMEOUT`` seconds), the last started first. Ctrl+C ends the block quietly."""
    stop_signals = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, *stop_signals)}
    for sig in stop_signals:
        signal.signal(sig, signal.default_int_handler)  # raises KeyboardInterrupt, so `finally` runs
    children: list[subprocess.Popen[bytes]] = []
    try:
        yield children
    except KeyboardInterrupt:
        pass
    finally:
        for sig in previous:  # a second signal must not cut the clean-up short
            signal.signal(sig, signal.SIG_IGN)
        stop_processes(children)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def stop_processes(processes: list[subprocess.Popen[bytes]], timeout: float = STOP_TIMEOUT) -> None:
    """SIGTERM to each process still running, the last started first; SIGKILL to those left after ``timeout``
    seconds."""
    for process in reversed(processes):
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + timeout
    for process in reversed(processes):
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_for_first(processes: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """Block until one of ``processes`` exits; return it."""
    while True:
        for process in processes:
            if process.poll() is not None:
                return process
        time.sleep(0.2)


#: Where the demo keeps the output of its service child, in the data directory.
SERVICE_LOG = "logs/service.log"
#: Seconds the demo waits for a service child that shows no sign of progress (no output, no CPU time)
#: before it gives up; a child that keeps working is waited for however long it takes.
STARTUP_STALL_SECONDS = 180.0
#: Seconds between the demo's "still starting" lines while it waits for the service.
STARTUP_REPORT_SECONDS = 15.0


class ChildOutput:
    """The output of a child process, copied line by line as it comes to this process's stdout and to a
    log file; keeps the last lines and when a line last came (a sign that the child is working)."""

    def __init__(self, process: subprocess.Popen[bytes], log_path: Path, *, echo: bool = True) -> None:
        import collections
        import threading

        self.log_path = log_path
        self.last: collections.deque[str] = collections.deque(maxlen=8)
        self.lines = 0
        self._echo = echo
        self._process = process
        log_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # in the data directory: private
        self._log = os.fdopen(os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab")
        stamp = time.strftime("%Y-%m-%d %H:%M:%S %z")
        self._log.write(f"--- {stamp}: {' '.join(map(str, process.args))}\n".encode())  # type: ignore[arg-type]
        self._log.flush()
        self._thread = threading.Thread(target=self._copy, name="child-output", daemon=True)
        self._thread.start()

    def _copy(self) -> None:
        assert self._process.stdout is not None
        with self._log:
            for line in self._process.stdout:
                self._log.write(line)
                self._log.flush()
                if self._echo:
                    with contextlib.suppress(OSError, ValueError):
                        sys.stdout.buffer.write(line)
                        sys.stdout.flush()
                text = line.decode(errors="replace").rstrip()
                if text:
                    self.last.append(text)
                self.lines += 1

    def finish(self, timeout: float = 5) -> None:
        """Wait (a little) for the rest of the output of a child that exited."""
        self._thread.join(timeout)


def cpu_seconds(pid: int) -> float | None:
    """CPU time used so far by process ``pid`` and its children (waited for or alive), from /proc;
    ``None`` where /proc is not there (then only the output shows progress)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
    for entry in Path("/proc").iterdir():  # the uvicorn workers, still running
        if not entry.name.isdigit():
            continue
        try:
            child = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(child[1]) == pid:
            total += sum(int(value) for value in child[11:13])
    return total / ticks


def wait_until_ready(
    process: subprocess.Popen[bytes],
    url: str,
    output: ChildOutput,
    what: str,
    *,
    stall_seconds: float = STARTUP_STALL_SECONDS,
    report_seconds: float = STARTUP_REPORT_SECONDS,
    say: Callable[[str], None] = click.echo,
) -> None:
    """Return once ``url`` answers; meanwhile wait as long as ``process`` is alive and working (it writes
    output or uses CPU time), saying every ``report_seconds`` that it still waits. Raise a
    ``ClickException`` naming the reason (its exit code and last lines, or how long it showed no sign of
    progress) and its log's path when it exits first or stalls for ``stall_seconds``."""
    import urllib.request

    started = time.monotonic()
    progressed = started
    reported = started
    seen = (output.lines, cpu_seconds(process.pid))
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except OSError:
            pass
        now = time.monotonic()
        if process.poll() is not None:
            output.finish()
            last = "\n  ".join(output.last) or "(no output)"
            raise click.ClickException(
                f"{what} exited with code {process.returncode} before it answered at {url}; its last "
                f"lines:\n  {last}\nIts whole log: {output.log_path}"
            )
        signs = (output.lines, cpu_seconds(process.pid))
        if signs != seen:
            seen, progressed = signs, now
        elif now - progressed > stall_seconds:
            process.terminate()
            raise click.ClickException(
                f"{what} did not answer at {url} and showed no progress (no output, no CPU time) for "
                f"{stall_seconds:.0f} s, so it was stopped; its log: {output.log_path}"
            )
        if now - reported >= report_seconds:
            reported = now
            say(f"Still waiting for {what} to answer at {url} ({now - started:.0f} s; it is alive, working).")
        time.sleep(0.3)


def start_server_process(
    settings: Any,
    host: str,
    port: int,
    workers: int,
    children: list[subprocess.Popen[bytes]],
    *,
    stall_seconds: float = STARTUP_STALL_SECONDS,
) -> subprocess.Popen[bytes]:
    """``facturador serve`` in a child process (added to ``children`` at once), its output shown and kept in
    the data directory's :data:`SERVICE_LOG`; returns it once it answers (see :func:`wait_until_ready`)."""
    command = [sys.executable, "-m", "facturador.cli", "serve"]
    command += ["--host", host, "--port", str(port), "--workers", str(workers)]
    process = subprocess.Popen(
        command,
        env={**os.environ, **settings.export(), "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    children.append(process)
    output = ChildOutput(process, settings.data_dir / SERVICE_LOG)
    click.echo(f"Starting the service on {host}:{port} (its log: {output.log_path})...")
    wait_until_ready(
        process, f"http://{host}:{port}/health", output, "the service", stall_seconds=stall_seconds
    )
    return process


def browser_can_open() -> bool:
    """Someone is there to see a browser opened: a terminal on stdin and, where browsers need one (Linux
    and the BSDs), a display. Unattended (``scripts/demo.sh </dev/null &``, a service, ssh without X),
    Streamlit opening one only left an ``xdg-open`` child behind, a zombie."""
    if not sys.stdin or not sys.stdin.isatty():
        return False
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def start_dashboard(
    tenants_file: Any, port: int, headless: bool, host: str, environment: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """``streamlit run`` of the dashboard on the given tenants file, listening on HOST:PORT, in a child
    process that never asks anything: without ``headless``, and with someone to see it
    (:func:`browser_can_open`), Streamlit opens the browser, but its first-run e-mail prompt (which reads
    end-of-input and exits 255 when there is no terminal, and otherwise waits for Enter), its usage
    statistics and its notices for developers are off. ``environment`` is added to the child's."""
    from dashboard import APP_PATH

    headless = headless or not browser_can_open()
    command = [sys.executable, "-m", "streamlit", "run", str(APP_PATH)]
    command += ["--server.port", str(port), "--server.headless", "true" if headless else "false"]
    command += ["--server.address", host, "--server.showEmailPrompt", "false"]
    command += ["--browser.gatherUsageStats", "false", "--client.toolbarMode", "minimal"]
    command += ["--logger.hideWelcomeMessage", "true"]  # and the "help agents" toast: we print the URL
    environment = {**os.environ, "FACTURADOR_TENANTS": str(tenants_file), **(environment or {})}
    return subprocess.Popen(command, env=environment)


def require_dashboard_login(host: str, tenants_file: Any) -> None:
    """Refuse to open the dashboard on an address other than loopback without a login: it holds the
    tenants' tokens. A password in the tenants file or Streamlit's OIDC login both count."""
    from dashboard.auth import is_loopback, oidc_configured, password_hash

    if is_loopback(host) or password_hash(tenants_file) or oidc_configured():
        return
    raise click.ClickException(
        f"the dashboard would listen on {host or 'every interface'} without a login, and it holds the "
        "tenants' tokens: set a password with `facturador dashboard-password` (or Streamlit's [auth] "
        "login in .streamlit/secrets.toml), or keep the default --host 127.0.0.1"
    )


TENANTS_OPTION = click.option(
    "--tenants",
    "tenants_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Tenants TOML (default: FACTURADOR_TENANTS, the user config file or the demo's).",
)


@main.command()
@TENANTS_OPTION
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="Address to listen on.")
@click.option("--port", default=8501, show_default=True, type=int)
@click.option(
    "--headless", is_flag=True, help="Do not open a browser (never opened without a terminal or a display)."
)
def dashboard(tenants_file: str | None, host: str, port: int, headless: bool) -> None:
    """Open the Streamlit dashboard on the tenants of the tenants file.

    It listens on 127.0.0.1; another --host needs a login (`facturador dashboard-password`, or
    Streamlit's OIDC login in .streamlit/secrets.toml)."""
    from connector.config import tenants_path

    path = tenants_file or str(tenants_path())
    require_dashboard_login(host, path)
    ensure_port_free(host, port, "the dashboard", "--port")
    code = 0
    with child_processes() as children:
        children.append(start_dashboard(path, port, headless, host))
        code = children[0].wait()
    raise SystemExit(code)


@main.command("dashboard-password")
@TENANTS_OPTION
@click.password_option("--password", prompt="Dashboard password", help="The password (asked when omitted).")
def dashboard_password(tenants_file: str | None, password: str) -> None:
    """Keep a dashboard password, hashed (PBKDF2-SHA256), in the tenants file's [dashboard] table."""
    from connector.config import tenants_path
    from dashboard.auth import hash_password

    path = Path(tenants_file or tenants_path())
    if not path.is_file():
        raise click.ClickException(f"no tenants file at {path}")
    kept: list[str] = []
    skipping = False
    for line in path.read_text(encoding="utf-8").splitlines():  # drop a previous [dashboard] table
        stripped = line.strip()
        if stripped.startswith("["):
            skipping = stripped == "[dashboard]"
        if not skipping:
            kept.append(line)
    kept += ["", "[dashboard]", f'password_hash = "{hash_password(password)}"', ""]
    path.write_text("\n".join(kept).lstrip("\n"), encoding="utf-8")
    path.chmod(0o600)
    click.echo(f"Dashboard password hash written to {path}")


@main.command("register")
@click.argument("tenant")
@click.argument("period")
@TENANTS_OPTION
@click.option("--folder", type=click.Path(file_okay=False), default=".", show_default=True)
@click.option(
    "--format",
    "formats",
    multiple=True,
    type=click.Choice(["ple", "ple-simplified", "sire", "adjustments", "adjustments-simplified", "excel"]),
    help="Files to write (repeatable; default ple, sire and excel): PLE 14.1 TXT, PLE 14.2 (simplified) "
    "TXT, SIRE RVIE zip, SIRE adjustment zip for earlier periods (states 8 and 9; Anexo 5.1, or 5.2 "
    "simplified), Excel.",
)
@click.option("--consolidate-boletas", is_flag=True, help="PLE: boletas under S/ 700 by day and series.")
@click.option(
    "--close",
    is_flag=True,
    help="Record PERIOD closed now (its register filed): documents of it that arrive later go to the next "
    "open month's register as state 8 (kept beside the tenant's local store, shared with the dashboard).",
)
def register_command(
    tenant: str,
    period: str,
    tenants_file: str | None,
    folder: str,
    formats: tuple[str, ...],
    consolidate_boletas: bool,
    close: bool,
) -> None:
    """Write the sales register of PERIOD (YYYY-MM) of TENANT: PLE 14.1 TXT, SIRE RVIE zip and Excel (and,
    asked with --format, the PLE 14.2 TXT and SIRE's adjustment zips)."""
    from analysis.register import sales_register
    from connector import FacturadorError
    from connector.closes import MonthCloses
    from connector.config import TenantConfigError, load_tenants
    from connector.store import closes_path
    from sunat.calendar import peru_now

    kinds = formats or ("ple", "sire", "excel")
    try:
        tenants = load_tenants(tenants_file)
        if tenant not in tenants:
            raise click.ClickException(f"no tenant {tenant!r} in the tenants file ({', '.join(tenants)})")
        closes = MonthCloses(closes_path(tenants[tenant].base_url))
        with tenants[tenant].client() as client:
            register = sales_register(
                client,
                period,
                folder=folder,
                kinds=kinds,
                consolidate_boletas=consolidate_boletas,
                closes=closes,
            )
        closed = closes.record((register.period.year, register.period.month))
        if close and closed is None:
            closed = closes.close(
                (register.period.year, register.period.month), peru_now(), source="register"
            )
    except (TenantConfigError, ValueError, FacturadorError) as exc:
        raise click.ClickException(str(exc)) from exc
    total = register.totals()["Importe total"]
    click.echo(
        f"{register.period}: {len(register.ple_rows())} PLE lines, {len(register.sire_rows())} RVIE lines, "
        f"{len(register.adjustment_rows())} adjustment lines (states 8 and 9), total S/ {total:,.2f}"
    )
    names = {
        "ple": register.ple_name,
        "ple-simplified": register.ple_simplified_name,
        "sire": register.sire_name[:-4] + ".zip",
        "adjustments": register.adjustment_name()[:-4] + ".zip",
        "adjustments-simplified": register.adjustment_name(simplified=True)[:-4] + ".zip",
        "excel": f"registro_ventas_{register.period}.xlsx",
    }
    for kind in kinds:
        click.echo(f"  {Path(folder) / names[kind]}")
    for warning in register.warnings:
        click.echo(f"  aviso: {warning}")
    if closed is not None:
        click.echo(f"  closed on {closed.closed_at:%Y-%m-%d %H:%M} (Lima, {closed.source})")


@main.command("sire")
@click.argument("tenant")
@click.argument("period", required=False)
@TENANTS_OPTION
@click.option("--accept", "action", flag_value="accept", help="Accept SUNAT's proposal as it is.")
@click.option(
    "--replace", "action", flag_value="replace", help="Replace the proposal with the books' RVIE file."
)
@click.option("--periods", "list_periods", is_flag=True, help="List the periods SIRE offers and stop.")
@click.option("--restart", is_flag=True, help="Ask for a new proposal (an unsent decision is forgotten).")
@click.option(
    "--adjustments",
    is_flag=True,
    help="Send the lines of earlier periods (states 8 and 9) as adjustments too.",
)
@click.option("--folder", type=click.Path(file_okay=False), default=None, help="Keep the files here.")
@click.option(
    "--sire-url",
    envvar="FACTURADOR_SIRE_URL",
    default=None,
    help="SIRE's root, e.g. the simulator's http://127.0.0.1:8000/sire (default: SUNAT's own hosts).",
)
@click.option("--polls", type=int, default=30, show_default=True, help="Polls of a ticket before giving up.")
def sire_command(
    tenant: str,
    period: str | None,
    tenants_file: str | None,
    action: str | None,
    list_periods: bool,
    restart: bool,
    adjustments: bool,
    folder: str | None,
    sire_url: str | None,
    polls: int,
) -> None:
    """Close PERIOD (YYYY-MM) of TENANT in SIRE (RVIE) by SUNAT's API: the proposal asked and compared
    with the books; with --accept or --replace, sent, each ticket followed, the preliminar registered and
    the month recorded closed. A rerun continues where it stopped. Credentials from SIRE_CLIENT_ID,
    SIRE_CLIENT_SECRET, SIRE_SOL_USER and SIRE_SOL_PASSWORD, else from the analyst's secrets of TENANT
    (facturador secrets set); never printed; docs/sire.md."""
    from analysis.sire import sire_close, sire_urls
    from connector import FacturadorError
    from connector.config import TenantConfigError, load_tenants
    from connector.sire import SireClient, SireCredentials, SireError
    from connector.store import closes_path

    token_base, api_base = sire_urls(sire_url)

    def sire_for(ruc: str) -> SireClient:
        credentials = SireCredentials.for_tenant(tenant, ruc)
        return SireClient(credentials, token_base=token_base, api_base=api_base)

    try:
        tenants = load_tenants(tenants_file)
        if tenant not in tenants:
            raise click.ClickException(f"no tenant {tenant!r} in the tenants file ({', '.join(tenants)})")
        config = tenants[tenant]
        if list_periods or period is None:
            import os

            ruc = os.environ.get("SIRE_RUC", "")
            if not ruc:
                raise click.ClickException("--periods needs the RUC in SIRE_RUC (or give PERIOD)")
            with sire_for(ruc) as sire:
                for item in sire.periods():
                    click.echo(f"{item.period}  {item.state}")
            return
        with config.client() as client:
            report = sire_close(
                client,
                period,
                sire_for,
                closes_file=closes_path(config.base_url),
                action=action,
                folder=folder,
                restart=restart,
                adjustments=adjustments,
                polls=polls,
                tell=click.echo,
            )
    except SireError as exc:
        raise click.ClickException(str(exc)) from exc
    except (TenantConfigError, ValueError, FacturadorError) as exc:
        raise click.ClickException(str(exc)) from exc
    if report.closed is not None:
        click.echo(f"closed on {report.closed.closed_at:%Y-%m-%d %H:%M} (Lima, {report.closed.source})")


@main.command("igv")
@click.argument("tenant")
@click.argument("period")
@TENANTS_OPTION
@click.option(
    "--box",
    "boxes",
    multiple=True,
    help="List the documents behind this box (repeatable): 100, 101, 102, 103, 106 or 105.",
)
def igv_command(tenant: str, period: str, tenants_file: str | None, boxes: tuple[str, ...]) -> None:
    """The sales side of PERIOD's (YYYY-MM) Formulario Virtual 621 of TENANT, box by box, from the same
    month's sales register (docs/igv_declaration.md)."""
    from analysis.igv import BOXES, monthly_igv
    from analysis.register import sales_register
    from connector import FacturadorError
    from connector.closes import MonthCloses
    from connector.config import TenantConfigError, load_tenants
    from connector.store import closes_path

    known = [rule.number for rule in BOXES]
    unknown = [box for box in boxes if box not in known]
    if unknown:
        raise click.ClickException(f"no sales box {', '.join(unknown)} (the boxes: {', '.join(known)})")
    try:
        tenants = load_tenants(tenants_file)
        if tenant not in tenants:
            raise click.ClickException(f"no tenant {tenant!r} in the tenants file ({', '.join(tenants)})")
        closes = MonthCloses(closes_path(tenants[tenant].base_url))  # facturador register's: the same lines
        with tenants[tenant].client() as client:
            declaration = monthly_igv(sales_register(client, period, closes=closes))
    except (TenantConfigError, ValueError, FacturadorError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"Formulario Virtual 621, periodo {declaration.period.month:02d}/{declaration.period.year}")
    for box in declaration.boxes:
        documents = f"{len(box.lines)} documento{'s' if len(box.lines) != 1 else ''}"
        click.echo(f"  {box.number}  {box.name:<68} S/ {box.amount:>16,.2f}  ({documents})")
    click.echo(f"  131  {'IGV de las ventas (101 - 103)':<68} S/ {declaration.output_igv:>16,.2f}")
    for extra in declaration.outside:
        if extra.amount:
            click.echo(
                f"  fuera del 621: {extra.name} S/ {extra.amount:,.2f} ({len(extra.lines)} documentos)"
            )
    if declaration.earlier:
        click.echo(
            f"  {len(declaration.earlier)} líneas de periodos anteriores (estados 8 y 9): corrigen el 621 de "
            "esos meses, no este"
        )
    for number in boxes:
        box = declaration.box(number)
        click.echo(f"Casilla {number}: {box.name}")
        for entry, amount in zip(box.lines, box.line_amounts, strict=True):
            rate = f" {entry.currency} a {entry.rate:.3f}" if entry.rate is not None else ""
            click.echo(f"  {entry.date:%d/%m/%Y}  {entry.source:<16} S/ {amount:>14,.2f}{rate}")


# -- the accountant's portfolio and secrets (logic: analysis/portfolio.py, connector/secrets.py) ----------


@main.command("portfolio")
@click.argument("period")
@TENANTS_OPTION
@click.option(
    "--workers", type=click.IntRange(1, 64), default=4, show_default=True, help="Companies at once."
)
@click.option(
    "--timeout", type=click.FloatRange(0.5, 600), default=None, help="Seconds per request (default 15)."
)
def portfolio_command(period: str, tenants_file: str | None, workers: int, timeout: float | None) -> None:
    """Every company of the tenants file for PERIOD (YYYY-MM): its close, its pending work and SUNAT's due
    date by the last digit of its RUC, sorted by what is due first (docs/portfolio.md). A company that
    cannot be reached says so; the others show."""
    from analysis.portfolio import CompanyRow, portfolio
    from connector.config import TenantConfigError

    def heard(done: int, total: int, row: CompanyRow) -> None:
        state = "ok" if row.reachable else row.problem
        click.echo(f"[{done}/{total}] {row.slug}: {state} ({row.seconds:.1f} s)", err=True)

    try:
        found = portfolio(period, tenants_file, workers=workers, progress=heard, timeout=timeout)
    except (TenantConfigError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    month = f"{found.period.month:02d}/{found.period.year}"
    click.echo(f"Cartera de empresas, periodo {month} (hoy {found.today:%d/%m/%Y})")
    for line in found.lines():
        click.echo(line)
    unreachable = len(found.unreachable)
    tail = f"; {unreachable} sin respuesta" if unreachable else ""
    click.echo(f"{len(found.rows)} empresas en {found.seconds:.1f} s{tail}")


@main.group("secrets")
def analyst_secrets() -> None:
    """The analyst's secrets for SUNAT's APIs (SOL password, SIRE and validity client id and secret) per
    company of the tenants file, encrypted (docs/analyst_secrets.md); the service's own: `tenant secret`."""


def _secret_store() -> Any:
    from connector.secrets import SecretsError, open_secrets

    try:
        return open_secrets()
    except SecretsError as exc:
        raise click.ClickException(str(exc)) from exc


@analyst_secrets.command("set")
@click.argument("tenant")
@click.argument("name")
@TENANTS_OPTION
@click.option("--from-env", "variable", default=None, help="Read the value from this environment variable.")
def secrets_set(tenant: str, name: str, tenants_file: str | None, variable: str | None) -> None:
    """Keep NAME (e.g. sire_client_secret) of TENANT, asked without echo (or read from --from-env)."""
    from connector.config import TenantConfigError, load_tenants
    from connector.secrets import SecretsError

    try:
        tenants = load_tenants(tenants_file)
    except TenantConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    if tenant not in tenants:
        raise click.ClickException(f"no tenant {tenant!r} in the tenants file ({', '.join(tenants)})")
    if variable is not None:
        value = os.environ.get(variable, "")
        if not value:
            raise click.ClickException(f"the environment variable {variable} is not set")
    else:
        value = click.prompt(f"{name} of {tenant}", hide_input=True)
    store = _secret_store()
    try:
        store.set(tenant, name, value)
    except SecretsError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{name} of {tenant} kept ({store!r}).")


@analyst_secrets.command("list")
@click.argument("tenant")
def secrets_list(tenant: str) -> None:
    """The names of TENANT's secrets kept (never their values)."""
    from connector.secrets import SecretsError

    try:
        names = _secret_store().names(tenant)
    except SecretsError as exc:
        raise click.ClickException(str(exc)) from exc
    for name in names:
        click.echo(name)
    if not names:
        click.echo(f"no secrets kept for {tenant}", err=True)


@analyst_secrets.command("delete")
@click.argument("tenant")
@click.argument("name")
def secrets_delete(tenant: str, name: str) -> None:
    """Forget NAME of TENANT."""
    from connector.secrets import SecretsError

    try:
        found = _secret_store().delete(tenant, name)
    except SecretsError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{name} of {tenant} {'deleted' if found else 'was not kept'}.")


# -- end of the portfolio and secrets block ---------------------------------------------------------------


@main.command()
@storage_options
@click.option("--host", default=DEFAULT_HOST, show_default=True)
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=int)
@click.option("--workers", default=2, show_default=True, type=int)
@click.option("--documents", default=3000, show_default=True, type=int, help="Documents seeded on first run.")
@click.option("--days", default=90, show_default=True, type=int)
@click.option("--dashboard-port", default=8501, show_default=True, type=int)
@click.option("--no-dashboard", is_flag=True, help="Only the service (no Streamlit).")
@click.option(
    "--headless", is_flag=True, help="Do not open a browser (never opened without a terminal or a display)."
)
def demo(
    settings: Any,
    host: str,
    port: int,
    workers: int,
    documents: int,
    days: int,
    dashboard_port: int,
    no_dashboard: bool,
    headless: bool,
) -> None:
    """The service with a demo tenant seeded with DOCUMENTS over DAYS days (first run), and the dashboard.

    Ctrl+C or SIGTERM (``kill PID``) stops the service, its workers and the dashboard; when either of them
    stops by itself, the other is stopped too and the exit code says whether it failed."""
    ensure_port_free(host, port, "the service", "--port")
    if not no_dashboard:
        require_dashboard_login(host, settings.data_dir / "tenants.toml")
        ensure_port_free(host, dashboard_port, "the dashboard", "--dashboard-port")
    from dashboard.seeding import PROGRESS_ENV

    progress_file = settings.data_dir / SEEDING_PROGRESS
    with child_processes() as children:
        click.echo(f"Data directory: {settings.data_dir}")
        click.echo("Preparing the database (creating or migrating its schema)...")
        empty = ensure_demo_tenant(settings)
        progress_file.unlink(missing_ok=True)  # a run stopped while seeding left it
        base_url = tenant_base_url(DEMO_SLUG, host, port)
        seeding = empty and documents > 0
        with backdating(settings, DEMO_SLUG) if seeding else contextlib.nullcontext():
            server = start_server_process(settings, host, port, workers, children)
            tenants = write_tenants_file(settings, base_url)
            click.echo(f"Demo tenant base URL: {base_url}")
            click.echo(f"Demo token: {DEMO_TOKEN}")
            click.echo(f"API docs: http://{host}:{port}/docs")
            click.echo(f"Tenants file for the dashboard and notebooks: {tenants}")
            if not no_dashboard:
                # started before the seeding, which it shows as it goes (dashboard.seeding)
                environment = {PROGRESS_ENV: str(progress_file)}
                children.append(start_dashboard(tenants, dashboard_port, headless, host, environment))
                click.echo(f"Dashboard: http://{host}:{dashboard_port}")
            if seeding:
                click.echo(f"Seeding {documents} documents over {days} days (first run only)...")
                report = run_seed(base_url, DEMO_TOKEN, documents, days, 7, progress_file)
                click.echo(report.summary())
        click.echo(f"Running; Ctrl+C or `kill {os.getpid()}` stops everything.")
        stopped = wait_for_first(children)
        name = "the service" if stopped is server else "the dashboard"
        if stopped.returncode != 0:
            raise click.ClickException(f"{name} stopped with exit code {stopped.returncode}")
        click.echo(f"{name} stopped; stopping the rest.")


# -- the simulator as SUNAT's SOAP services (docs/going_live.md, "The standalone SUNAT endpoint") -------

SUNAT_PORT = 8300


@main.command("sunat")
@storage_options
@click.option("--host", default=DEFAULT_HOST, show_default=True)
@click.option("--port", default=SUNAT_PORT, show_default=True, type=int)
@click.option("--ose", is_flag=True, help="Answer every rejection with its CDR, as an OSE does.")
@click.option("--log-level", default="warning", show_default=True)
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar="FACTURADOR_SUNAT_STATE_DIR",
    help="Folder of the simulator's own files (its CDR-signing key and certificate, stylesheets' copies); "
    "env FACTURADOR_SUNAT_STATE_DIR. Default: the user's state folder for facturador-sunat, never the "
    "(possibly shared) data directory.",
)
def sunat_endpoint(
    settings: Any, host: str, port: int, ose: bool, log_level: str, state_dir: Path | None
) -> None:
    """Serve the built-in SUNAT simulator alone as SUNAT's SOAP services, on the data directory's tenants
    (their SOL users; MODDATOS/moddatos on the beta paths for any RUC), its validity API at /v1/...
    (docs/validity.md) and SIRE's at /sire (docs/sire.md). ``facturador serve`` also serves them, at /sunat,
    /validez and /sire. Its own files go to --state-dir, not into the data directory."""
    import dataclasses

    import uvicorn
    from platformdirs import user_state_dir

    from facturador.authority.soap.protocol import PATHS
    from facturador.config import private_directory
    from facturador.domain.sire_endpoint import SIRE_MOUNT, SireMount, service_sire_app
    from facturador.domain.validity_endpoint import standalone_app

    ensure_port_free(host, port, "the SUNAT endpoint", "--port")
    state = private_directory(Path(state_dir or user_state_dir("facturador-sunat")).expanduser().resolve())
    settings = dataclasses.replace(settings, authority_state=state)
    context = _context(settings)
    click.echo(f"The simulator's own files (its signing key, stylesheets' copies) are in {state}")
    click.echo(f"Serving SUNAT's SOAP services{' as an OSE' if ose else ''} on http://{host}:{port}:")
    for path in PATHS:
        environment = "beta" if path.beta else "production"
        click.echo(f"  http://{host}:{port}{path.path}  ({path.service.value}, {environment})")
    click.echo(
        f"  http://{host}:{port}/v1/contribuyente/contribuyentes/{{ruc}}/validarcomprobante  (validez)"
    )
    click.echo(f"  http://{host}:{port}{SIRE_MOUNT}  (SIRE RVIE REST API and its token endpoint)")
    endpoint = SireMount(standalone_app(context, ose=ose), service_sire_app(context))
    try:
        uvicorn.run(endpoint, host=host, port=port, log_level=log_level)
    finally:
        context.engine.dispose()


@main.group("sunat-fault")
def sunat_fault() -> None:
    """Make the simulator's SOAP endpoint fail on purpose (kinds in docs/going_live.md)."""


@sunat_fault.command("add")
@storage_options
@click.argument("kind")
@click.option("--ruc", default=None, help="Only this taxpayer's requests (default: every RUC).")
@click.option("--operation", default="", help="Only sendBill, sendSummary, getStatus or getStatusCdr.")
@click.option("--code", default="", help="SUNAT's code of a fault, duplicate or exception-cdr.")
@click.option("--times", type=int, default=None, help="The next N requests (1 unless --for is given).")
@click.option("--for", "seconds", type=float, default=None, help="For this many seconds.")
@click.option("--hold", type=float, default=0.0, help="Seconds a timeout holds the answer (default 60).")
def sunat_fault_add(
    settings: Any,
    kind: str,
    ruc: str | None,
    operation: str,
    code: str,
    times: int | None,
    seconds: float | None,
    hold: float,
) -> None:
    """Inject KIND: fault, 503, reset, reset-after, cut, timeout, truncated-zip, garbage, duplicate or
    exception-cdr."""
    import datetime as dt

    from facturador.authority.soap.injection import Fault
    from facturador.store.faults import SqlFaultStore

    until = None
    if seconds is not None:
        until = dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(seconds=seconds)
    fault = Fault(
        kind=kind,
        ruc=ruc,
        operation=operation,
        code=code,
        seconds=hold,
        remaining=times if times is not None or seconds is not None else 1,
        until=until,
    )
    context = _context(settings)
    try:
        added = SqlFaultStore(context.db).add(fault)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        context.engine.dispose()
    click.echo(f"Injected {added.describe()}")


@sunat_fault.command("list")
@storage_options(read_only=lambda _: True)
@click.option("--ruc", default=None, help="Only those that apply to this taxpayer.")
def sunat_fault_list(settings: Any, ruc: str | None) -> None:
    """List the injected failures that still apply."""
    from facturador.store.faults import SqlFaultStore

    context = _context(settings)
    try:
        faults = SqlFaultStore(context.db).active(ruc)
    finally:
        context.engine.dispose()
    for fault in faults:
        click.echo(fault.describe())
    if not faults:
        click.echo("No failures injected.")


@sunat_fault.command("clear")
@storage_options
@click.option("--ruc", default=None, help="Only this taxpayer's (default: every injection).")
def sunat_fault_clear(settings: Any, ruc: str | None) -> None:
    """Remove injected failures."""
    from facturador.store.faults import SqlFaultStore

    context = _context(settings)
    try:
        removed = SqlFaultStore(context.db).clear(ruc)
    finally:
        context.engine.dispose()
    click.echo(f"Removed {removed} injected failure(s).")


# -- every document's validity at SUNAT (docs/validity.md) ------------------------------------------------


@main.command("validate")
@storage_options
@click.argument("slug")
@click.argument("period")
@click.option(
    "--apply", "apply_states", is_flag=True, help="Set each disagreeing state to SUNAT's (audited)."
)
@click.option(
    "--rate", default=2.0, show_default=True, type=click.FloatRange(min=0.01), help="Queries a second."
)
@click.option("--progress", type=click.Path(dir_okay=False), default=None, help="Progress file (resumable).")
@click.option("--base-url", default=None, help="A running tenant base URL (default: an embedded server).")
@click.option("--token", envvar="FACTURADOR_TOKEN", default=None, help="Token for --base-url.")
def validate_command(
    settings: Any,
    slug: str,
    period: str,
    apply_states: bool,
    rate: float,
    progress: str | None,
    base_url: str | None,
    token: str | None,
) -> None:
    """Ask SUNAT's validity API about every document of PERIOD (YYYY-MM) of tenant SLUG, boletas included,
    and report every disagreement with the books and the corrective summary lost tickets call for; a rerun
    continues where the last one stopped (the worker's scheduled sweep, setting ``validity_sweep_day``,
    shares its progress). The tenant's ``validity_client_id`` (``validity_api_url``, ``validity_token_url``;
    secret ``validity_client_secret``, or FACTURADOR_VALIDITY_CLIENT_SECRET) points at SUNAT; without it
    this service's simulator answers."""
    from connector import Client
    from connector.validity import ValidityClient, ValidityEndpoint
    from connector.validity_sweep import apply, month_bounds, render, sweep
    from facturador.authority.validity.simulator import SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET
    from facturador.domain.tenants import get_tenant
    from facturador.domain.validity_endpoint import VALIDITY_MOUNT

    try:
        month_bounds(period)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="PERIOD") from None
    if base_url is not None and not token:
        raise click.UsageError("--base-url needs --token (or FACTURADOR_TOKEN)")
    context = _context(settings)
    try:
        with context.session() as session:
            tenant = get_tenant(session, slug)
            ruc, tenant_settings, tenant_id = tenant.ruc, dict(tenant.settings or {}), tenant.id
        stored_secret = context.tenant_secret(tenant_id, "validity_client_secret")
    except Exception as exc:  # noqa: BLE001 - an unknown tenant is the user's error
        raise click.ClickException(f"tenant {slug!r}: {exc}") from None
    finally:
        context.engine.dispose()
    path = Path(progress) if progress else settings.data_dir / "validity" / f"{slug}-{period}.jsonl"

    def run(url: str, api_token: str) -> None:
        own = url.split("/t/")[0] + VALIDITY_MOUNT
        client_id = tenant_settings.get("validity_client_id") or SIMULATOR_CLIENT_ID
        secret = (
            stored_secret or os.environ.get("FACTURADOR_VALIDITY_CLIENT_SECRET", "")
            if tenant_settings.get("validity_client_id")
            else SIMULATOR_CLIENT_SECRET
        )
        api = tenant_settings.get("validity_api_url") or own
        endpoint = ValidityEndpoint(
            tenant_settings.get("validity_token_url") or api, api, client_id, secret, ruc
        )
        with Client(url, api_token, cache=False) as client, ValidityClient(endpoint) as validity:
            report = sweep(client, validity, period, progress=path, rate=rate)
            click.echo(render(report))
            if apply_states and report.disagreements:
                applied = apply(client, report)
                click.echo(f"{len(applied)} estados corregidos con su motivo (ver state-changes).")
            if report.stopped_by:
                raise click.ClickException(f"the sweep stopped: {report.stopped_by}; run again to continue")

    if base_url is not None:
        run(base_url.rstrip("/"), str(token))
    else:
        with embedded_service(settings, slug) as (url, api_token):
            run(url, api_token)


# -- SUNAT's public registers: the padrón reducido and the day's exchange rate (logic in
# facturador.domain.padron and facturador.domain.exchange_rates) ------------------------------------


@main.group("padron")
def padron() -> None:
    """SUNAT's padrón reducido (every RUC with its state and condition), imported into the store."""


@padron.command("import")
@storage_options
@click.argument("source")
@click.option("--force", is_flag=True, help="Read the file again even if it was imported in full before.")
def padron_import(settings: Any, source: str, force: bool) -> None:
    """Import SOURCE (SUNAT's padron_reducido_ruc.zip or its .txt, a path or an http(s) URL): streamed,
    only changed lines written, resumable where an interrupted import of the same file stopped."""
    import time

    from tqdm import tqdm

    from facturador.domain.padron import download, import_padron

    context = _context(settings)
    try:
        path = Path(source)
        if source.startswith(("http://", "https://")):
            with tqdm(unit="B", unit_scale=True, desc="Downloading", disable=None) as bar:

                def fetched(done: int, total: int) -> None:
                    bar.total = total or None
                    bar.update(done - bar.n)

                path = download(source, settings.data_dir / "padron", fetched)
        elif not path.is_file():
            raise click.ClickException(f"{source} is not a file nor an http(s) URL")
        started = time.monotonic()
        with tqdm(unit="B", unit_scale=True, desc="Importing", disable=None) as bar:

            def read(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            try:
                result = import_padron(context.engine, path, source=source, progress=read, force=force)
            except (OSError, ValueError) as exc:
                raise click.ClickException(f"{source} could not be read: {exc}") from exc
    finally:
        context.engine.dispose()
    if result.already_imported:
        click.echo(f"{source} was imported in full already ({result.lines} lines); --force reads it again.")
        return
    resumed = f", resumed at byte {result.resumed_from}" if result.resumed_from else ""
    click.echo(
        f"Padrón imported: {result.lines} lines read, {result.written} rows written (new or changed), "
        f"{result.skipped} unreadable lines skipped{resumed}, in {time.monotonic() - started:.1f} s."
    )


@main.command("exchange-rate")
@storage_options
@click.option("--url", default=None, help="The source (default FACTURADOR_EXCHANGE_RATE_URL, else SUNAT's).")
def exchange_rate_command(settings: Any, url: str | None) -> None:
    """Fetch SUNAT's published exchange rate now and cache it (the service also fetches it when a dollar
    document comes without factor_tipo_de_cambio)."""
    from facturador.domain.exchange_rates import SUNAT_URL, fetch, source_url

    context = _context(settings)
    try:
        new = fetch(context.engine, url or source_url() or SUNAT_URL, force=True)
    finally:
        context.engine.dispose()
    click.echo(f"{new} new rate(s) cached.")


if __name__ == "__main__":  # pragma: no cover
    main()
