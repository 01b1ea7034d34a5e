"""The ``facturador`` command: serve the API, manage tenants and series, run the demo."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
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


DEMO_SLUG = "demo"
DEMO_RUC = "20100066603"
DEMO_TOKEN = "demo-token-facturador-kit-0123456789abcdef"


@main.command()
@storage_options
@click.option("--host", default=DEFAULT_HOST, show_default=True)
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=int)
@click.option("--workers", default=2, show_default=True, type=int)
def demo(settings: Any, host: str, port: int, workers: int) -> None:
    """Start the service with a demo tenant (created on first run)."""
    import uvicorn
    from sqlalchemy import select

    from facturador.service.domain.tenants import create_tenant
    from facturador.service.store.models import Tenant

    context = _context(settings)
    with context.session() as session, session.begin():
        if session.scalar(select(Tenant.id).where(Tenant.slug == DEMO_SLUG)) is None:
            create_tenant(
                session,
                settings,
                DEMO_SLUG,
                ruc=DEMO_RUC,
                name="EMPRESA DEMO S.A.C.",
                trade_name="Demo",
                address="Av. Javier Prado Este 123, San Isidro",
                ubigeo="150131",
                token=DEMO_TOKEN,
            )
    context.engine.dispose()
    os.environ.update(settings.export())
    click.echo(f"Data directory: {settings.data_dir}")
    click.echo(f"Demo tenant base URL: {tenant_base_url(DEMO_SLUG, host, port)}")
    click.echo(f"Demo token: {DEMO_TOKEN}")
    click.echo(f"API docs: http://{host}:{port}/docs")
    uvicorn.run(
        "facturador.service.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
    )


if __name__ == "__main__":  # pragma: no cover
    main()
