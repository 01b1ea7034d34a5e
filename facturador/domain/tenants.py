"""Companies (tenants), their series, API tokens and signing certificates."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from facturador.authority.soap.protocol import DESTINATIONS
from facturador.config import Settings
from facturador.store.db import remember_tenant
from facturador.store.identities import ensure_tenant_identity
from facturador.store.models import (
    DEFAULT_SETTINGS,
    Establishment,
    Series,
    Tenant,
    TenantSecret,
    User,
    tenant_settings,
)
from facturador.store.secrets import SECRET_NAMES, Vault
from sunat.catalogs import DOCUMENT_TYPES
from sunat.identity import is_valid_ruc
from sunat.series import is_contingency_series, is_valid_series
from sunat.ubigeo import is_valid_ubigeo

#: The series every new company starts with: facturas, boletas, their notes, retentions and perceptions,
#: and sale notes (80, NV01).
DEFAULT_SERIES: tuple[tuple[str, str], ...] = (
    ("01", "F001"),
    ("03", "B001"),
    ("07", "FC01"),
    ("07", "BC01"),
    ("08", "FD01"),
    ("08", "BD01"),
    ("20", "R001"),
    ("40", "P001"),
    ("80", "NV01"),
)

SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
URL_RE = re.compile(r"^https?://[^\s/?#]+[^\s]*$")
USER_RE = re.compile(r"^[A-Za-z0-9]{1,30}$")


class TenantError(ValueError):
    """A tenant, series or token operation got bad input."""


@dataclass(frozen=True)
class CreatedTenant:
    tenant: Tenant
    token: str


def hash_token(token: str) -> str:
    """The stored form of an API token (tokens themselves are never stored)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A 60-character random API token, like the real service's."""
    return secrets.token_urlsafe(45)[:60]


def parse_setting(key: str, raw: str) -> Any:
    """Convert a ``key=value`` text from the command line to the setting's type."""
    if key not in DEFAULT_SETTINGS:
        raise TenantError(f"unknown setting {key!r}; known: {', '.join(sorted(DEFAULT_SETTINGS))}")
    default = DEFAULT_SETTINGS[key]
    if isinstance(default, bool):
        if raw.lower() not in {"true", "false", "1", "0", "yes", "no"}:
            raise TenantError(f"setting {key} takes true or false")
        return raw.lower() in {"true", "1", "yes"}
    if isinstance(default, int):
        if not raw.isdigit():
            raise TenantError(f"setting {key} takes a whole number")
        if key == "summary_hour" and not 0 <= int(raw) <= 23:
            raise TenantError("setting summary_hour takes an hour of the day in Lima, 0 to 23")
        if key == "validity_sweep_day" and not 0 <= int(raw) <= 28:
            raise TenantError("setting validity_sweep_day takes a day of the month, 1 to 28 (0: off)")
        return int(raw)
    if isinstance(default, float):
        try:
            value = float(raw)
        except ValueError:
            raise TenantError(f"setting {key} takes a number of seconds") from None
        if not 0 <= value <= 3600:
            raise TenantError(f"setting {key} takes 0 to 3600 seconds")
        return value
    if key == "authority_mode" and raw not in {"test", "strict"}:
        raise TenantError("authority_mode is test or strict")
    if key == "sunat_sending" and raw not in DESTINATIONS:
        raise TenantError(f"sunat_sending is one of {', '.join(DESTINATIONS)}")
    if key.endswith("_url") and raw and not URL_RE.match(raw):
        raise TenantError(f"{key} takes an http:// or https:// URL (or nothing)")
    if key in ("sol_user", "gre_username") and raw and not USER_RE.match(raw):
        raise TenantError(f"{key} takes letters and digits only (at most 30)")
    if key == "authority_rules_dir":
        return rules_dir(raw)
    if key.startswith("smtp_"):  # the SMTP server's settings (facturador tenant smtp checks them all)
        from facturador.domain.email_records import check_smtp_changes

        try:
            return check_smtp_changes({key: raw})[key]
        except ValueError as exc:
            raise TenantError(str(exc)) from None
    return raw


def rules_dir(value: str) -> str:
    """A valid ``authority_rules_dir``: empty (the simulator's own rules only), or a folder of SUNAT's
    published stylesheets, resolved; raises :class:`TenantError` saying what is wrong (saxonche missing,
    not a folder, stylesheets missing)."""
    if not value:
        return ""
    from facturador.authority.stylesheets import StylesheetsError, check_folder

    try:
        return str(check_folder(value))
    except StylesheetsError as exc:
        raise TenantError(str(exc)) from None


def _checked(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` with ``authority_rules_dir`` checked (see :func:`rules_dir`)."""
    if "authority_rules_dir" in settings:
        return {**settings, "authority_rules_dir": rules_dir(str(settings["authority_rules_dir"] or ""))}
    return settings


def create_tenant(
    session: Session,
    settings: Settings,
    slug: str,
    *,
    ruc: str,
    name: str,
    address: str = "",
    ubigeo: str = "",
    trade_name: str = "",
    host: str | None = None,
    token: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> CreatedTenant:
    """Create a company with its main establishment, a user with a token, a certificate and default series."""
    if not SLUG_RE.match(slug):
        raise TenantError("the slug must be lowercase letters, digits and dashes (at most 63 characters)")
    if not is_valid_ruc(ruc):
        raise TenantError(f"RUC {ruc} is not valid: 11 digits with a correct check digit are required")
    if not name.strip():
        raise TenantError("the company name is required")
    if ubigeo and not is_valid_ubigeo(ubigeo):
        raise TenantError(f"ubigeo {ubigeo} is not a known district code")
    if token is not None and len(token) < 20:
        raise TenantError("a token must have at least 20 characters")
    if session.scalar(select(Tenant.id).where(Tenant.slug == slug)) is not None:
        raise TenantError(f"a tenant named {slug!r} already exists")
    token = token or new_token()
    tenant = Tenant(
        slug=slug,
        ruc=ruc,
        name=name.strip(),
        trade_name=trade_name,
        address=address,
        ubigeo=ubigeo,
        host=host.lower() if host else None,
        settings={**DEFAULT_SETTINGS, **_checked(overrides or {})},
    )
    session.add(tenant)
    session.flush()
    establishment = Establishment(
        tenant_id=tenant.id, code="0000", description="Oficina principal", address=address, ubigeo=ubigeo
    )
    session.add(establishment)
    session.flush()
    session.add(
        User(
            tenant_id=tenant.id,
            establishment_id=establishment.id,
            name="Administrador",
            email=f"admin@{slug}.local",
            token_hash=hash_token(token),
        )
    )
    for doc_type, series in DEFAULT_SERIES:
        session.add(
            Series(
                tenant_id=tenant.id,
                establishment_id=establishment.id,
                document_type_id=doc_type,
                number=series,
            )
        )
    try:
        session.flush()
    except IntegrityError as exc:
        raise TenantError("that token or host is already used by another tenant") from exc
    ensure_tenant_identity(session, tenant.id, ruc, name, Vault.open(settings.data_dir))
    remember_tenant(settings.database_url, settings.data_dir, slug)  # a store file lost later is noticed
    return CreatedTenant(tenant=tenant, token=token)


def get_tenant(session: Session, slug: str) -> Tenant:
    tenant = session.scalar(select(Tenant).where(Tenant.slug == slug))
    if tenant is None:
        raise TenantError(f"no tenant named {slug!r}")
    return tenant


def set_secret(session: Session, vault: Vault, slug: str, name: str, value: str | None) -> None:
    """Keep a tenant's secret ``name`` encrypted (``value`` None or empty: forget it)."""
    if name not in SECRET_NAMES:
        raise TenantError(f"unknown secret {name!r}; known: {', '.join(sorted(SECRET_NAMES))}")
    tenant = get_tenant(session, slug)
    row = session.get(TenantSecret, (tenant.id, name))
    if not value:
        if row is not None:
            session.delete(row)
        return
    if len(value) > 200 or any(ord(char) < 32 for char in value):
        raise TenantError(f"{name} must be at most 200 characters, without control characters")
    if row is None:
        session.add(TenantSecret(tenant_id=tenant.id, name=name, value=vault.encrypt(value)))
    else:
        row.value = vault.encrypt(value)
    session.flush()


def check_sending(session: Session, tenant: Tenant, settings: dict[str, Any]) -> None:
    """Refuse to send to SUNAT's production or an OSE without what it takes: the SOL user and password
    (and the OSE's URL). SUNAT's beta gets only its public credentials (``MODDATOS``), whatever is set."""
    destination = settings.get("sunat_sending", "simulator")
    if destination not in ("production", "ose"):
        return
    missing = []
    if destination == "ose" and not settings.get("ose_url"):
        missing.append(f"the OSE's URL (facturador tenant set {tenant.slug} ose_url=https://...)")
    if not settings.get("sol_user"):
        missing.append(f"the SOL user (facturador tenant set {tenant.slug} sol_user=USUARIO)")
    if "sol_password" not in secrets_set(session, tenant.id):
        missing.append(f"the SOL password (facturador tenant secret {tenant.slug} sol_password)")
    if missing:
        raise TenantError(f"sending to {destination} needs " + "; ".join(missing))


def secrets_set(session: Session, tenant_id: int) -> set[str]:
    """The names of the secrets a tenant holds (never their values)."""
    return set(session.scalars(select(TenantSecret.name).where(TenantSecret.tenant_id == tenant_id)))


def add_series(
    session: Session, slug: str, doc_type: str, series: str, *, contingency: bool = False
) -> Series:
    """Register a series for a document type; numeric series (0001...) must be contingency series."""
    tenant = get_tenant(session, slug)
    series = series.upper()
    if doc_type not in DOCUMENT_TYPES:
        raise TenantError(f"document type {doc_type} is not in catalog 01")
    if not is_valid_series(doc_type, series):
        raise TenantError(f"series {series} does not fit document type {doc_type}")
    if is_contingency_series(series) != contingency:
        raise TenantError(
            "numeric series (0001..9999) are contingency series: use --contingency with them only"
        )
    exists = session.scalar(
        select(Series.id).where(
            Series.tenant_id == tenant.id, Series.document_type_id == doc_type, Series.number == series
        )
    )
    if exists is not None:
        raise TenantError(f"series {series} is already registered for document type {doc_type}")
    establishment = session.scalar(select(Establishment).where(Establishment.tenant_id == tenant.id))
    assert establishment is not None
    row = Series(
        tenant_id=tenant.id,
        establishment_id=establishment.id,
        document_type_id=doc_type,
        number=series,
        contingency=contingency,
    )
    session.add(row)
    session.flush()
    return row


def update_settings(session: Session, slug: str, changes: dict[str, Any]) -> dict[str, Any]:
    tenant = get_tenant(session, slug)
    settings = {**tenant_settings(tenant), **_checked(changes)}
    check_sending(session, tenant, settings)
    tenant.settings = settings
    session.flush()
    return tenant.settings
