"""What a running service holds: database, data directory, per-tenant caches and the authority gateway."""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import inspect, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from facturador.authority.gateway import AuthorityGateway
from facturador.authority.simulator import DEFAULT_TICKET_DELAY, SunatSimulator
from facturador.authority.soap.client import SoapEndpoint, SoapGateway
from facturador.authority.soap.protocol import (
    BETA_SOL_PASSWORD,
    BETA_SOL_USER,
    ServiceUrls,
    keeps_connections,
    soap_username,
    sunat_urls,
)
from facturador.config import Settings
from facturador.issued import Issuer
from facturador.store.db import Database, check_store_not_lost
from facturador.store.identities import (
    ENCRYPTED_KEY_FILE,
    ensure_tenant_identity,
    identity_version,
    import_files,
    load_identity,
    load_tenant_identity,
)
from facturador.store.models import (
    Establishment,
    Series,
    Tenant,
    TenantCertificate,
    TenantSecret,
    User,
    tenant_settings,
)
from facturador.store.registry import SqlRegistry
from facturador.store.secrets import Vault
from facturador.store.tickets import SqlTicketStore
from facturador.ubl.signing import SigningIdentity
from sunat.calendar import peru_today

SUNAT_RUC = "20131312955"


@dataclass(frozen=True)
class _Unavailable:
    """Stands for stylesheets that could not be loaded: checking with them raises the reason."""

    reason: str

    def check(self, *_args: Any) -> None:
        from facturador.authority.stylesheets import StylesheetsError

        raise StylesheetsError(self.reason)


CACHE_SECONDS = 5.0


@dataclass(frozen=True)
class TenantInfo:
    """An immutable snapshot of a tenant, cached per process."""

    id: int
    slug: str
    ruc: str
    name: str
    host: str | None
    settings: dict[str, Any]
    issuer: Issuer
    establishment_id: int


def sends_remotely(tenant: TenantInfo) -> bool:
    """Whether ``tenant`` sends over SOAP (SUNAT's beta or production, an OSE) rather than to the
    built-in simulator in this process."""
    return tenant.settings.get("sunat_sending", "simulator") != "simulator"


@dataclass(frozen=True)
class Caller:
    """The authenticated user of a request."""

    user_id: int
    establishment_id: int


@dataclass
class _Cached:
    value: Any
    at: float = field(default_factory=time.monotonic)


class ServiceContext:
    """Shared state of one service process; everything tenant-specific is looked up by tenant."""

    def __init__(
        self,
        settings: Settings,
        *,
        today: Callable[[], dt.date] = peru_today,
        clock: Callable[[], float] = time.time,
        migrate: bool = True,
    ):
        """``today`` gives the Lima date the simulated SUNAT's date rules use; ``clock`` the epoch seconds
        its tickets (summaries, voided communications, reversions, guides) are timed with: a ticket stays
        in process ``authority_ticket_delay`` seconds of this clock, so tests advance it instead of
        sleeping."""
        self.settings = settings
        check_store_not_lost(settings.database_url, settings.data_dir)
        self.db = Database(
            settings.database_url, writer_lock=settings.data_dir / "sqlite-writer.lock", migrate=migrate
        )
        self.engine = self.db.engine
        self.sessions = self.db.sessions
        #: The key of the tenants' secrets; a key that does not open them is refused here, at start.
        self.vault = Vault.open(settings.data_dir)
        #: The tenants whose certificate files (an earlier release's) were copied into the database at start.
        self.moved_identities: list[str] = []
        with self.session() as session:
            self.vault.check(session.scalars(select(TenantSecret.value)))
            if inspect(self.engine).has_table(TenantCertificate.__tablename__):  # not on a schema behind
                self.vault.check(session.scalars(select(TenantCertificate.signing_key)))
        tenants = settings.data_dir / "tenants"
        if tenants.is_dir():  # keys imported by an earlier release are encrypted with the same key
            self.vault.check(
                path.read_text("ascii").strip() for path in tenants.glob(f"*/{ENCRYPTED_KEY_FILE}")
            )
            if migrate:  # the nodes' and commands' start, and `facturador migrate`
                self.moved_identities = self.import_identity_files()
        self.today = today
        self.clock = clock
        self._lock = threading.Lock()
        #: What the driver raises for a unique or foreign key violation on the DB-API cursor.
        self.dbapi_integrity_error = self.db.integrity_error
        self._tenants: dict[str, _Cached] = {}
        self._hosts: dict[str, _Cached] = {}
        self._tokens: dict[tuple[int, str], _Cached] = {}
        self._identities: dict[int, tuple[int, SigningIdentity]] = {}
        self._series: dict[tuple[int, str, str], int] = {}
        self._authority_identity: SigningIdentity | None = None
        self._stylesheets: dict[str, Any] = {}

    def session(self) -> Session:
        return self.sessions()

    def writing(self) -> contextlib.AbstractContextManager[Connection]:
        """A connection in a write transaction (see :meth:`Database.writing`)."""
        return self.db.writing()

    def writing_one(self) -> contextlib.AbstractContextManager[Connection]:
        """A connection for a one-statement write (see :meth:`Database.writing_one`)."""
        return self.db.writing_one()

    def reading(self) -> contextlib.AbstractContextManager[Connection]:
        """A connection for reads outside a transaction (see :meth:`Database.reading`)."""
        return self.db.reading()

    # -- tenants -----------------------------------------------------------------------------------

    def tenant_by_slug(self, slug: str) -> TenantInfo | None:
        return self._cached(self._tenants, slug, lambda s: self._load_tenant(s, Tenant.slug == slug))

    def tenant_by_host(self, host: str) -> TenantInfo | None:
        host = host.split(":")[0].lower()
        return self._cached(self._hosts, host, lambda s: self._load_tenant(s, Tenant.host == host))

    def _cached(self, cache: dict, key: Any, load: Callable[[Session], Any]) -> Any:
        entry = cache.get(key)
        if entry is not None and time.monotonic() - entry.at < CACHE_SECONDS:
            return entry.value
        with self.session() as session:
            value = load(session)
        cache[key] = _Cached(value)
        return value

    def _load_tenant(self, session: Session, condition: Any) -> TenantInfo | None:
        tenant = session.scalar(select(Tenant).where(condition))
        if tenant is None:
            return None
        establishment = session.scalar(
            select(Establishment).where(Establishment.tenant_id == tenant.id).order_by(Establishment.id)
        )
        assert establishment is not None
        issuer = Issuer(
            ruc=tenant.ruc,
            name=tenant.name,
            trade_name=tenant.trade_name,
            address=establishment.address or tenant.address,
            ubigeo=establishment.ubigeo or tenant.ubigeo,
            establishment_code=establishment.code,
        )
        return TenantInfo(
            id=tenant.id,
            slug=tenant.slug,
            ruc=tenant.ruc,
            name=tenant.name,
            host=tenant.host,
            settings=tenant_settings(tenant),
            issuer=issuer,
            establishment_id=establishment.id,
        )

    def series_id(self, tenant: TenantInfo, doc_type: str, series: str) -> int | None:
        """The id of a registered series (positive answers are cached; new series are found at once)."""
        key = (tenant.id, doc_type, series)
        cached = self._series.get(key)
        if cached is not None:
            return cached
        with self.session() as session:
            series_id = session.scalar(
                select(Series.id).where(
                    Series.tenant_id == tenant.id,
                    Series.document_type_id == doc_type,
                    Series.number == series,
                )
            )
        if series_id is not None:
            self._series[key] = series_id
        return series_id

    def authenticate(self, tenant: TenantInfo, token_hash: str) -> Caller | None:
        """The user owning ``token_hash`` in this tenant, or None (tokens never open another tenant)."""

        def load(session: Session) -> Caller | None:
            user = session.scalar(
                select(User).where(User.tenant_id == tenant.id, User.token_hash == token_hash)
            )
            return Caller(user.id, user.establishment_id) if user else None

        return self._cached(self._tokens, (tenant.id, token_hash), load)

    def tenant_secret(self, tenant_id: int, name: str) -> str | None:
        """A tenant's secret in clear (its SOL password...), or None when it was never set."""
        with self.session() as session:
            token = session.scalar(
                select(TenantSecret.value).where(
                    TenantSecret.tenant_id == tenant_id, TenantSecret.name == name
                )
            )
        return None if token is None else self.vault.decrypt(token)

    # -- signing and the authority -----------------------------------------------------------------

    def import_identity_files(self) -> list[str]:
        """Copy the certificates and keys an earlier release kept in this data directory's
        ``tenants/<slug>/`` into the database (once per tenant; see
        :func:`facturador.store.identities.import_files`). Returns the slugs of the tenants copied."""
        moved = []
        with self.session() as session:
            for tenant_id, slug in session.execute(select(Tenant.id, Tenant.slug)).all():
                if import_files(session, tenant_id, self.settings.tenant_dir(slug), self.vault):
                    moved.append(slug)
        return moved

    def identity(self, tenant: TenantInfo) -> SigningIdentity:
        """The tenant's signing key and certificate: its newest in the database, whose version is checked
        before each signing, so a certificate imported on any node (``facturador tenant certificate``) is
        used from the next document on; kept in the process between versions."""
        with self.reading() as connection:  # no transaction: no BEGIN and ROLLBACK round trips per issue
            version = identity_version(connection, tenant.id)
        cached = self._identities.get(tenant.id)
        if cached is not None and version is not None and cached[0] == version:
            return cached[1]
        with self.session() as session:
            loaded = load_tenant_identity(session, tenant.id, self.vault)
            if loaded is None:  # a tenant made without one (create_tenant gives every tenant its own)
                ensure_tenant_identity(session, tenant.id, tenant.ruc, tenant.name, self.vault)
                session.commit()
                loaded = load_tenant_identity(session, tenant.id, self.vault)
                assert loaded is not None
        self._identities[tenant.id] = loaded
        return loaded[1]

    def authority_identity(self) -> SigningIdentity:
        """The simulated SUNAT's own certificate (signs CDRs), created once in the data directory."""
        if self._authority_identity is None:
            with self._lock:
                self._authority_identity = load_identity(
                    self.settings.authority_dir / "identity", SUNAT_RUC, "SUNAT"
                )
        return self._authority_identity

    def gateway(
        self,
        tenant: TenantInfo,
        registry: SqlRegistry | None = None,
        *,
        received_on: dt.date | None = None,
        tickets: SqlTicketStore | None = None,
    ) -> AuthorityGateway:
        """The authority this tenant sends to: SUNAT, an OSE or the simulator's SOAP endpoint over SOAP
        (:func:`sends_remotely`), else the built-in SUNAT simulator with the tenant's settings.

        ``registry`` and ``tickets`` let the caller collect the simulator's registry and ticket writes and
        commit them together with its own (see the ``deferred`` mode of :class:`SqlRegistry` and
        :class:`SqlTicketStore`). ``received_on`` makes the authority take the document as received that
        day (a sandbox loading history; see ``authority_check_deadlines``, which also turns off the date
        rules of summaries). Tickets stay in process ``authority_ticket_delay`` seconds of the context's
        ``clock``.
        """
        if sends_remotely(tenant):
            return SoapGateway(self.soap_endpoint(tenant))
        return self.simulator(
            tenant.ruc, tenant.settings, registry=registry, received_on=received_on, tickets=tickets
        )

    def simulator(
        self,
        ruc: str,
        settings: Mapping[str, Any],
        *,
        registry: SqlRegistry | None = None,
        received_on: dt.date | None = None,
        tickets: SqlTicketStore | None = None,
    ) -> SunatSimulator:
        """The built-in SUNAT simulator as taxpayer ``ruc`` (its SOL user's RUC) sees it, with the
        ``authority_*`` settings of ``settings`` (a tenant's; :data:`DEFAULT_SETTINGS` for a RUC that is
        no tenant): the in-process gateway and the SOAP endpoint answer alike. See :meth:`gateway`."""
        rules_dir = str(settings.get("authority_rules_dir") or "")
        return SunatSimulator(
            self.authority_identity(),
            registry if registry is not None else SqlRegistry(self.db),
            mode=settings.get("authority_mode", "test"),
            today=(lambda: received_on) if received_on is not None else self.today,
            outage=bool(settings.get("authority_outage", False)),
            tickets=tickets if tickets is not None else SqlTicketStore(self.db),
            ticket_delay=float(settings.get("authority_ticket_delay", DEFAULT_TICKET_DELAY)),
            clock=self.clock,
            check_deadlines=bool(settings.get("authority_check_deadlines", True)),
            user_ruc=ruc,
            stylesheets=self.sunat_stylesheets(rules_dir) if rules_dir else None,
        )

    def soap_endpoint(self, tenant: TenantInfo) -> SoapEndpoint:
        """Where and as whom ``tenant`` sends over SOAP (its ``sunat_sending`` settings and SOL password).

        SUNAT's beta gets only ``RUC + MODDATOS`` / ``moddatos``, whatever SOL user the tenant has set:
        the company's real user and password go only to production or the tenant's OSE (which need them:
        refused when set without them, see :func:`facturador.domain.tenants.check_sending`). An OSE's user
        given whole (starting with the RUC) is sent as it is."""
        settings = tenant.settings
        destination = settings.get("sunat_sending", "simulator")
        if destination == "beta":
            sol_user, password = BETA_SOL_USER, BETA_SOL_PASSWORD
        else:
            sol_user = str(settings.get("sol_user") or "")
            password = self.tenant_secret(tenant.id, "sol_password") or ""
        if destination == "ose":
            url = str(settings.get("ose_url") or "")
            consult = str(settings.get("ose_consult_url") or "")
            urls = ServiceUrls(bill=url, other=url, consult=consult)
            username = sol_user if sol_user.startswith(tenant.ruc) else soap_username(tenant.ruc, sol_user)
        else:
            base = str(settings.get("sunat_url") or "")
            urls = sunat_urls(destination, base)
            # SUNAT's beta has no billConsultService (and MODDATOS opens none at another host either)
            consult = "" if destination == "beta" else urls.consult
            username = soap_username(tenant.ruc, sol_user)
        return SoapEndpoint(
            urls=urls,
            username=username,
            password=password,
            timeout=float(settings.get("sunat_timeout", 30.0)),
            retries=int(settings.get("sunat_retries", 2)),
            consult=bool(consult),
            keep_alive=keeps_connections(destination),
        )

    def sunat_stylesheets(self, folder: str) -> Any:
        """SUNAT's published stylesheets of ``folder`` (a tenant's ``authority_rules_dir``), loaded once
        per process and shared by the tenants that name it. When they cannot be loaded (saxonche missing,
        the folder gone) the simulator answers SUNAT's exception 0100 with the reason, and nothing
        breaks: the document stays to be sent again."""
        with self._lock:
            loaded = self._stylesheets.get(folder)
            if loaded is None:
                from facturador.authority import stylesheets  # saxonche only when a tenant uses it

                try:
                    loaded = stylesheets.SunatStylesheets(folder, self.settings.authority_dir / "stylesheets")
                except stylesheets.StylesheetsError as exc:
                    return _Unavailable(str(exc))  # not kept: a fixed folder is used on the next send
                self._stylesheets[folder] = loaded
            return loaded
