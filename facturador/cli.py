"""The ``facturador`` command: serve the API, manage tenants and series, run the demo."""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator
from typing import Any

import click

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def storage_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--data-dir`` and ``--database`` to a subcommand and hand it resolved ``Settings``."""

    @click.option(
        "--data-dir",
        envvar="FACTURADOR_DATA_DIR",
        type=click.Path(file_okay=False),
        help="Directory for the SQLite database, certificates and files (env FACTURADOR_DATA_DIR).",
    )
    @click.option(
        "--database",
        envvar="FACTURADOR_DATABASE_URL",
        help="SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db (env FACTURADOR_DATABASE_URL). "
        "Default: SQLite in the data directory.",
    )
    @functools.wraps(command)
    def wrapper(*args: Any, data_dir: str | None, database: str | None, **kwargs: Any) -> Any:
        from facturador.service.config import Settings

        return command(*args, settings=Settings.resolve(data_dir, database), **kwargs)

    return wrapper


def _context(settings: Any) -> Any:
    from facturador.service.context import ServiceContext

    return ServiceContext(settings)


def tenant_base_url(slug: str, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> str:
    return f"http://{host}:{port}/t/{slug}"


@click.group()
@click.version_option(package_name="facturador-kit")
def main() -> None:
    """facturador-kit: Peruvian electronic invoicing service, connector and tools."""


@main.command()
@storage_options
@click.option("--host", default=DEFAULT_HOST, show_default=True)
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=int)
@click.option("--workers", default=1, show_default=True, type=int, help="Server processes.")
@click.option("--log-level", default="warning", show_default=True)
def serve(settings: Any, host: str, port: int, workers: int, log_level: str) -> None:
    """Serve every tenant: by its host name and at http://HOST:PORT/t/SLUG."""
    import uvicorn

    context = _context(settings)  # creates or migrates the schema once, before the workers start
    context.engine.dispose()
    os.environ.update(settings.export())
    click.echo(f"Serving facturador on http://{host}:{port} (tenants at /t/<slug>, OpenAPI at /docs)")
    uvicorn.run(
        "facturador.service.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
    )


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
    from facturador.service.domain.tenants import TenantError, create_tenant

    context = _context(settings)
    try:
        with context.session() as session, session.begin():
            created = create_tenant(
                session, settings, slug, overrides={"authority_mode": authority_mode}, **fields
            )
    except TenantError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"Tenant {slug} created for RUC {created.tenant.ruc} ({created.tenant.name}).")
    click.echo("Series: F001 (01), B001 (03), FC01 BC01 (07), FD01 BD01 (08)")
    click.echo(f"Base URL: {tenant_base_url(slug)}")
    click.echo(f"Token: {created.token}")


@tenant.command("list")
@storage_options
def tenant_list(settings: Any) -> None:
    """List tenants with their RUC, host and settings."""
    from sqlalchemy import select

    from facturador.service.domain.tenants import tenant_settings
    from facturador.service.store.models import Tenant

    context = _context(settings)
    with context.session() as session:
        tenants = list(session.scalars(select(Tenant).order_by(Tenant.slug)))
        if not tenants:
            click.echo("No tenants yet: create one with 'facturador tenant create'.")
        for row in tenants:
            options = tenant_settings(row)
            click.echo(
                f"{row.slug:<20} {row.ruc}  {row.name:<40} host={row.host or '-'}  "
                f"mode={options['authority_mode']}  base_url={tenant_base_url(row.slug)}"
            )


@tenant.command("set")
@storage_options
@click.argument("slug")
@click.argument("assignments", nargs=-1, required=True)
def tenant_set(settings: Any, slug: str, assignments: tuple[str, ...]) -> None:
    """Change tenant settings: KEY=VALUE ... (shipping_time_days, send_auto, authority_mode, ...)."""
    from facturador.service.domain.tenants import TenantError, parse_setting, update_settings

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
    from facturador.service.domain.tenants import TenantError, add_series

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
    import time

    import uvicorn
    from sqlalchemy import select, update

    from facturador.service.app import create_app
    from facturador.service.domain.tenants import get_tenant, hash_token, new_token
    from facturador.service.store.models import Establishment, User

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
    """Let a tenant take documents dated in the past for a while (for seeding history), with the
    authority answering tickets at once (summaries and voiding are seeded too), then restore."""
    from facturador.service.domain.tenants import get_tenant, tenant_settings, update_settings

    changes = {
        "restrict_receipt_date": False,
        "authority_check_deadlines": False,
        "authority_ticket_delay": 0.0,
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


def run_seed(base_url: str, token: str, documents: int, days: int, seed_value: int) -> Any:
    """Issue the seed documents through the API with a progress bar, then declare and void some (the bar
    names the phase); returns the report."""
    from tqdm import tqdm

    from facturador.connector import Client
    from facturador.seeding import seed

    client = Client(base_url, token, cache=False, timeout=60)
    with tqdm(total=documents, unit="doc", desc="Issuing", disable=None) as bar:
        done = [0]

        def progress(count: int) -> None:
            bar.update(count - done[0])
            done[0] = count

        return seed(
            client, documents, days, seed=seed_value, progress=progress, stage=bar.set_description_str
        )


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
    from facturador.service.domain.tenants import TenantError

    if base_url and not token:
        raise click.ClickException("--base-url needs --token (or FACTURADOR_TOKEN)")
    try:
        with backdating(settings, slug):
            if base_url:
                import time

                from facturador.service.context import CACHE_SECONDS

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


def ensure_demo_tenant(settings: Any) -> bool:
    """Create the demo tenant if missing; True when it has no documents yet."""
    from sqlalchemy import func, select

    from facturador.service.domain.tenants import create_tenant
    from facturador.service.store.models import Document, Tenant

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
        f'[tenants.{DEMO_SLUG}]\nname = "{DEMO_NAME}"\nbase_url = "{base_url}"\ntoken = "{DEMO_TOKEN}"\n',
        encoding="utf-8",
    )
    path.chmod(0o600)
    return path


def start_server_process(settings: Any, host: str, port: int, workers: int) -> Any:
    """``facturador serve`` in a child process; returns it once it answers."""
    import subprocess
    import sys
    import time
    import urllib.request

    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "facturador.cli",
            "serve",
            "--host",
            host,
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        env={**os.environ, **settings.export()},
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://{host}:{port}/health", timeout=1).close()
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.terminate()
                raise click.ClickException(f"the service did not start on {host}:{port}") from None
            time.sleep(0.3)


def run_dashboard(tenants_file: Any, port: int, headless: bool) -> int:
    """``streamlit run`` of the dashboard with the given tenants file; returns its exit code."""
    import subprocess
    import sys

    from facturador.dashboard import APP_PATH

    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP_PATH),
        "--server.port",
        str(port),
        "--server.headless",
        "true" if headless else "false",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "minimal",
    ]
    return subprocess.call(command, env={**os.environ, "FACTURADOR_TENANTS": str(tenants_file)})


@main.command()
@click.option(
    "--tenants",
    "tenants_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Tenants TOML (default: FACTURADOR_TENANTS or the user config file).",
)
@click.option("--port", default=8501, show_default=True, type=int)
@click.option("--headless", is_flag=True, help="Do not open a browser.")
def dashboard(tenants_file: str | None, port: int, headless: bool) -> None:
    """Open the Streamlit dashboard on the tenants of the tenants file."""
    from facturador.connector.config import tenants_path

    path = tenants_file or str(tenants_path())
    raise SystemExit(run_dashboard(path, port, headless))


@main.command()
@storage_options
@click.option("--host", default=DEFAULT_HOST, show_default=True)
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=int)
@click.option("--workers", default=2, show_default=True, type=int)
@click.option("--documents", default=3000, show_default=True, type=int, help="Documents seeded on first run.")
@click.option("--days", default=90, show_default=True, type=int)
@click.option("--dashboard-port", default=8501, show_default=True, type=int)
@click.option("--no-dashboard", is_flag=True, help="Only the service (no Streamlit).")
@click.option("--headless", is_flag=True, help="Do not open a browser.")
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
    """The service with a demo tenant seeded with DOCUMENTS over DAYS days (first run), and the dashboard."""
    empty = ensure_demo_tenant(settings)
    base_url = tenant_base_url(DEMO_SLUG, host, port)
    click.echo(f"Data directory: {settings.data_dir}")
    seeding = empty and documents > 0
    server = None
    try:
        with backdating(settings, DEMO_SLUG) if seeding else contextlib.nullcontext():
            server = start_server_process(settings, host, port, workers)
            if seeding:
                click.echo(f"Seeding {documents} documents over {days} days (first run only)...")
                click.echo(run_seed(base_url, DEMO_TOKEN, documents, days, 7).summary())
        tenants = write_tenants_file(settings, base_url)
        click.echo(f"Demo tenant base URL: {base_url}")
        click.echo(f"Demo token: {DEMO_TOKEN}")
        click.echo(f"API docs: http://{host}:{port}/docs")
        click.echo(f"Tenants file for the dashboard and notebooks: {tenants}")
        if no_dashboard:
            click.echo("Service running; Ctrl+C stops it.")
            server.wait()
        else:
            click.echo(f"Dashboard: http://{host}:{dashboard_port}")
            run_dashboard(tenants, dashboard_port, headless)
    except KeyboardInterrupt:
        pass
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":  # pragma: no cover
    main()
