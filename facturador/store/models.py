"""Database tables of the service. Every business table carries ``tenant_id``: queries are always scoped."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Computed,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    Numeric,
    String,
    Table,
    Text,
    Time,
    UniqueConstraint,
    bindparam,
    case,
    false,
    func,
    literal_column,
    null,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.sql.elements import Label

from facturador.store.direct import direct
from facturador.store.search import column_default

Money = Numeric(14, 2, asdecimal=True)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, Decimal: Money}


#: Tenant settings and their defaults (the real service's defaults where it has one).
DEFAULT_SETTINGS: dict[str, Any] = {
    "restrict_receipt_date": True,  # refuse issue dates too far from today
    "shipping_time_days": 4,  # |issue date - today| must stay below this many days
    "send_auto": True,  # send facturas and their notes to the authority when issued
    "authority_mode": "test",  # "test": like SUNAT's beta; "strict": production-like registry checks
    "authority_outage": False,  # simulate the authority being unreachable (answers exception 0109)
    "authority_check_deadlines": True,  # False: a sandbox takes back-dated documents (2108/2329 not applied)
    "authority_ticket_delay": 2.0,  # seconds a summary's ticket answers 98 (in process) before its CDR
    "send_retry_seconds": 60.0,  # first wait before the pending sender (re)sends a document; doubles per try
    "summary_auto": False,  # the background worker declares past days' boletas still registered (RC)
    "summary_hour": 0,  # ...from this Lima hour (0-23) on: e.g. 6, after a night's late sales are in
    "authority_rules_dir": "",  # a folder of SUNAT's published stylesheets the simulator runs too ("": none)
    "authority_ose": False,  # the SOAP endpoint answers this RUC's rejections with a CDR, as an OSE does
    # where documents go (docs/going_live.md): "simulator" (built in), SUNAT "beta" or "production", "ose"
    "sunat_sending": "simulator",
    "sunat_url": "",  # beta/production at this base URL instead of SUNAT's host (e.g. the SOAP simulator)
    "ose_url": "",  # the OSE's billService URL (every document type goes there)
    "ose_consult_url": "",  # the OSE's billConsultService URL, when it offers one ("": no CDR consultation)
    "sol_user": "",  # the SOL secondary user (the SOAP user name is RUC + this); its password is a secret
    "sunat_timeout": 30.0,  # seconds to wait for SUNAT's answer to one request
    "sunat_retries": 2,  # quick retries of a request that never reached SUNAT (refused connection, 503)
    # the GRE REST API of dispatch guides ("": the built-in simulator); the client secret is a secret
    "gre_token_url": "",
    "gre_api_url": "",
    "gre_client_id": "",
    "gre_username": "",  # RUC + SOL user ("": RUC + sol_user)
    "gre_timeout": 30.0,
    # SUNAT's validity API (docs/validity.md; "": SUNAT's hosts); its client secret is a secret. Without a
    # client id a tenant on the simulator is swept against the simulator, any other is not swept
    "validity_token_url": "",
    "validity_api_url": "",
    "validity_client_id": "",
    "validity_sweep_day": 0,  # 1-28: from this day of each month the worker sweeps the month before (0 off)
    "validity_sweep_rate": 2.0,  # queries a second of that sweep
    # the document lists' extension (changed_since, limit, after: docs/local_store.md); False answers as
    # real tenants do, ignoring those parameters
    "list_changes": True,
    # loading a history (facturador seed, the demo): each document's created_at is its own issue date and
    # time in Lima, as if registered then, not the moment it was loaded (restrict_receipt_date off only)
    "history_stamps": False,
    # the tenant's SMTP server for e-mailing documents to customers (docs/email.md); its password is the
    # secret smtp_password. smtp_tls: "none", "starttls" or "ssl"; smtp_cafile: a PEM of the CAs to trust
    # besides the system's (a private server's certificate)
    "smtp_host": "",
    "smtp_port": 587,
    "smtp_tls": "starttls",
    "smtp_user": "",
    "smtp_from": "",
    "smtp_from_name": "",
    "smtp_cafile": "",
    "smtp_timeout": 30.0,
    "email_retry_seconds": 60.0,  # first wait before a delivery that met a transient error is tried again
    "email_max_attempts": 5,  # attempts (transient errors) before a delivery is recorded failed
}


def tenant_settings(tenant: Tenant) -> dict[str, Any]:
    """The tenant's settings with defaults filled in."""
    return {**DEFAULT_SETTINGS, **(tenant.settings or {})}


class Tenant(Base):
    """A company: its RUC, name, fiscal address, host and settings."""

    __tablename__ = "tenants"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    ruc: Mapped[str] = mapped_column(String(11))
    name: Mapped[str] = mapped_column(String(500))
    trade_name: Mapped[str] = mapped_column(String(500), default="")
    address: Mapped[str] = mapped_column(String(500), default="")
    ubigeo: Mapped[str] = mapped_column(String(6), default="")
    host: Mapped[str | None] = mapped_column(String(255), unique=True)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    establishments: Mapped[list[Establishment]] = relationship(back_populates="tenant")


class TenantSecret(Base):
    """A tenant's secret (its SOL password, GRE client secret...), encrypted with the service's key
    (:mod:`facturador.store.secrets`); never returned by the API nor printed."""

    __tablename__ = "tenant_secrets"

    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True)
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class TenantCertificate(Base):
    """A tenant's signing certificate (PEM) and its key (PEM, encrypted with the service's key as the
    tenants' secrets are): every node signs with the tenant's newest row (the highest id), so a
    certificate imported on one host is used by all; the older rows are the certificates it replaced."""

    __tablename__ = "tenant_certificates"

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    certificate: Mapped[str] = mapped_column(Text)
    signing_key: Mapped[str] = mapped_column(Text)
    #: ``generated`` (self-signed, for the simulator), ``imported`` (a PKCS#12 file) or ``files`` (moved
    #: from the data directory of an earlier release).
    source: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Establishment(Base):
    """A registered establishment (``domicilio fiscal`` is code 0000)."""

    __tablename__ = "establishments"
    __table_args__ = (UniqueConstraint("tenant_id", "code"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    code: Mapped[str] = mapped_column(String(4), default="0000")
    description: Mapped[str] = mapped_column(String(255), default="Oficina principal")
    address: Mapped[str] = mapped_column(String(500), default="")
    ubigeo: Mapped[str] = mapped_column(String(6), default="")

    tenant: Mapped[Tenant] = relationship(back_populates="establishments")


class User(Base):
    """An API user of a tenant; only the SHA-256 of its token is stored."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    establishment_id: Mapped[int] = mapped_column(ForeignKey("establishments.id"))
    name: Mapped[str] = mapped_column(String(255))
    email: Mapped[str] = mapped_column(String(255), default="")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Series(Base):
    """A numbering series for a document type; ``last_number`` is the correlative counter."""

    __tablename__ = "series"
    __table_args__ = (UniqueConstraint("tenant_id", "document_type_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    establishment_id: Mapped[int] = mapped_column(ForeignKey("establishments.id"))
    document_type_id: Mapped[str] = mapped_column(String(2))
    number: Mapped[str] = mapped_column(String(4))
    contingency: Mapped[bool] = mapped_column(Boolean, default=False)
    last_number: Mapped[int] = mapped_column(Integer, default=0)


#: Partial indexes hold only the rows that have a value (most documents have no idempotency key, and only
#: the documents the service still has to send have a next sending time).
_HAS_KEY = text("idempotency_key IS NOT NULL")
_HAS_NEXT_SEND = text("next_send_at IS NOT NULL")


class Document(Base):
    """An issued factura, boleta or note with its totals, state and the authority's answer.

    ``idempotency_key`` is the client's key for the sale (``offline_id`` or the ``Idempotency-Key`` header),
    unique per tenant, with ``idempotency_hash`` the digest of the body it came with. ``next_send_at``
    (naive UTC) is set while the service owes the document's sending (see ``facturador.domain.pending``)
    and ``send_attempts`` counts the authority's answers so far.
    """

    __tablename__ = "documents"
    __table_args__ = (
        UniqueConstraint("tenant_id", "document_type_id", "series", "number", name="uq_document_number"),
        Index("ix_documents_tenant_date", "tenant_id", "date_of_issue"),
        Index("ix_documents_tenant_updated", "tenant_id", "updated_at"),  # the lists' changed_since
        Index(
            "uq_documents_idempotency_key",
            "tenant_id",
            "idempotency_key",
            unique=True,
            sqlite_where=_HAS_KEY,
            postgresql_where=_HAS_KEY,
        ),
        Index(
            "ix_documents_next_send",
            "next_send_at",
            sqlite_where=_HAS_NEXT_SEND,
            postgresql_where=_HAS_NEXT_SEND,
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(36), unique=True)
    establishment_id: Mapped[int] = mapped_column(ForeignKey("establishments.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    group_id: Mapped[str] = mapped_column(String(2))
    document_type_id: Mapped[str] = mapped_column(String(2))
    series: Mapped[str] = mapped_column(String(4))
    number: Mapped[int] = mapped_column(Integer)
    filename: Mapped[str] = mapped_column(String(64))
    date_of_issue: Mapped[dt.date] = mapped_column(Date)
    time_of_issue: Mapped[dt.time] = mapped_column(Time)
    date_of_due: Mapped[dt.date | None] = mapped_column(Date)
    operation_type_id: Mapped[str | None] = mapped_column(String(4))
    currency_type_id: Mapped[str] = mapped_column(String(3))
    exchange_rate_sale: Mapped[Decimal] = mapped_column(Numeric(12, 6), default=Decimal(1))
    purchase_order: Mapped[str] = mapped_column(String(100), default="")
    customer_identity_type: Mapped[str] = mapped_column(String(2))
    customer_number: Mapped[str] = mapped_column(String(20))
    customer_name: Mapped[str] = mapped_column(String(1500))
    customer: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    total_exportation: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_free: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_unaffected: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_exonerated: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_taxed: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_igv: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_igv_free: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_plastic_bag_taxes: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_isc: Mapped[Decimal] = mapped_column(default=Decimal(0), server_default="0")  # scheme 2000
    total_other_taxes: Mapped[Decimal] = mapped_column(default=Decimal(0), server_default="0")  # 9999
    total_taxes: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_value: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total: Mapped[Decimal] = mapped_column(default=Decimal(0))
    state_type_id: Mapped[str] = mapped_column(String(2), default="01")
    hash: Mapped[str] = mapped_column(String(100), default="")
    qr_text: Mapped[str] = mapped_column(Text, default="")
    number_to_letter: Mapped[str] = mapped_column(String(500), default="")
    format_pdf: Mapped[str] = mapped_column(String(16), default="a4")
    send_xml_signed: Mapped[bool] = mapped_column(Boolean, default=True)
    response: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    regularize_shipping: Mapped[bool] = mapped_column(Boolean, default=False)
    note_type_id: Mapped[str | None] = mapped_column(String(2))
    note_description: Mapped[str | None] = mapped_column(String(500))
    affected_document_id: Mapped[int | None] = mapped_column(ForeignKey("documents.id"))
    affected_document: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    data_json: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    #: The payments registered with the sale (``pagos[]``): method, destination, reference, amount, date.
    payments: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, default=list)
    idempotency_key: Mapped[str | None] = mapped_column(String(100))
    idempotency_hash: Mapped[str | None] = mapped_column(String(64))
    send_attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    next_send_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class StateChange(Base):
    """A document's state set by hand (``POST /api/documents/updatedocumentstatus``): who, when (naive
    UTC), from which state to which, and why. Kept for the accountant: nothing of it goes to SUNAT."""

    __tablename__ = "document_state_changes"
    __table_args__ = (Index("ix_document_state_changes_document", "document_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    user_name: Mapped[str] = mapped_column(String(255), default="")
    from_state: Mapped[str] = mapped_column(String(2))
    to_state: Mapped[str] = mapped_column(String(2))
    reason: Mapped[str] = mapped_column(String(500), default="")
    changed_at: Mapped[dt.datetime] = mapped_column(DateTime)


class EmailDelivery(Base):
    """A document (``kind`` "document") or sale note ("sale_note") e-mailed to its customer
    (:mod:`facturador.domain.email_delivery`): to which addresses, its ``state`` ("queued", "sent",
    "failed"), how many SMTP attempts were made, the last error and when the next attempt is due. Times
    are naive UTC (shown in Lima's time)."""

    __tablename__ = "email_deliveries"
    __table_args__ = (
        Index("ix_email_deliveries_target", "kind", "target_id"),
        Index("ix_email_deliveries_due", "state", "next_attempt_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    target_id: Mapped[int] = mapped_column(Integer)
    address: Mapped[str] = mapped_column(String(1000))
    state: Mapped[str] = mapped_column(String(10), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_error: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime)
    sent_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    next_attempt_at: Mapped[dt.datetime | None] = mapped_column(DateTime)


class Artifact(Base):
    """A stored file of a document: signed XML, CDR zip, rendered PDFs."""

    __tablename__ = "artifacts"
    __table_args__ = (UniqueConstraint("document_id", "kind"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))  # xml | cdr | pdf-a4 | pdf-ticket | ...
    content: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class AuthorityRecord(Base):
    """The simulated tax authority's memory of the documents it received (its own registry)."""

    __tablename__ = "authority_records"

    issuer_ruc: Mapped[str] = mapped_column(String(11), primary_key=True)
    document_type_id: Mapped[str] = mapped_column(String(2), primary_key=True)
    series: Mapped[str] = mapped_column(String(4), primary_key=True)
    number: Mapped[str] = mapped_column(String(8), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    digest: Mapped[str] = mapped_column(String(100), default="")
    code: Mapped[str] = mapped_column(String(8), default="")
    cdr_zip: Mapped[bytes | None] = mapped_column(LargeBinary)
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class SunatFault(Base):
    """A failure the simulator's SOAP endpoint injects (``facturador sunat-fault``): for ``ruc`` (None:
    every taxpayer) and ``operation`` ("": every one), the next ``remaining`` requests (None: no count)
    until ``until`` (naive UTC; None: no end). ``kind``, ``code`` and ``seconds`` say what happens
    (:mod:`facturador.authority.soap.injection`). Kept in the database so every worker process sees it."""

    __tablename__ = "sunat_faults"
    __table_args__ = (Index("ix_sunat_faults_ruc", "ruc"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    ruc: Mapped[str | None] = mapped_column(String(11))
    operation: Mapped[str] = mapped_column(String(32), default="")
    kind: Mapped[str] = mapped_column(String(16))
    code: Mapped[str] = mapped_column(String(8), default="")
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    remaining: Mapped[int | None] = mapped_column(Integer)
    until: Mapped[dt.datetime | None] = mapped_column(DateTime)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Job(Base):
    """One piece of background work owed (:mod:`facturador.store.jobs`): ``kind`` ("send", "send_other",
    "poll") of the row ``target_id`` of its table, due at ``run_at`` (naive UTC). A worker that takes it
    holds it until ``lease_until``; past that time another worker may take it again (the first died).
    One job per target: enqueueing it twice keeps the first."""

    __tablename__ = "jobs"
    __table_args__ = (
        UniqueConstraint("kind", "target_id", name="uq_jobs_kind_target"),
        Index("ix_jobs_run_at", "run_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    target_id: Mapped[int] = mapped_column(Integer)
    run_at: Mapped[dt.datetime] = mapped_column(DateTime)
    lease_owner: Mapped[str | None] = mapped_column(String(100))
    lease_until: Mapped[dt.datetime | None] = mapped_column(DateTime)
    taken: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: Whether the last take found the job held past its lease (its worker died): counted in
    #: :class:`JobLeaseExpiry` by the take that retook it.
    retaken: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    last_error: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class JobLeaseExpiry(Base):
    """How many times, per kind, a job was taken again because the worker holding it let its lease run
    out (it died or hung): a counter for ``/metrics`` that outlives the jobs (they are deleted when done)."""

    __tablename__ = "job_lease_expiries"

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Summary(Base):
    """A daily summary (RC) or voided communication (RA) the tenant sent, with its ticket and answer.

    ``summary_type`` is "RC" or "RA"; ``process_type`` the summary's ``codigo_tipo_proceso`` ("1" declare,
    "3" void; always "3" for RA). ``identifier`` is ``RC-YYYYMMDD-n`` with ``date_of_issue`` (the day it
    was generated) and ``sequence`` n per tenant, type and day; ``date_of_reference`` is the issue date of
    its documents. ``response`` keeps the authority's final answer (code, description, notes,
    status_code), ``xml`` the signed XML and ``cdr_zip`` the CDR once the ticket is processed.
    """

    __tablename__ = "summaries"
    __table_args__ = (
        UniqueConstraint(
            "tenant_id", "summary_type", "date_of_issue", "sequence", name="uq_summary_identifier"
        ),
        Index("ix_summaries_tenant_ticket", "tenant_id", "ticket"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(36), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    summary_type: Mapped[str] = mapped_column(String(2))
    process_type: Mapped[str] = mapped_column(String(1))
    identifier: Mapped[str] = mapped_column(String(32))
    sequence: Mapped[int] = mapped_column(Integer)
    filename: Mapped[str] = mapped_column(String(64))
    date_of_issue: Mapped[dt.date] = mapped_column(Date)
    date_of_reference: Mapped[dt.date] = mapped_column(Date)
    state_type_id: Mapped[str] = mapped_column(String(2))
    ticket: Mapped[str] = mapped_column(String(32))
    hash: Mapped[str] = mapped_column(String(100), default="")
    response: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    xml: Mapped[bytes] = mapped_column(LargeBinary)
    cdr_zip: Mapped[bytes | None] = mapped_column(LargeBinary)
    #: When the background poller asks SUNAT about the ticket next (naive UTC; None: nothing to ask),
    #: how many times it asked, and the last error it got.
    next_poll_at: Mapped[dt.datetime | None] = mapped_column(DateTime, index=True)
    poll_attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    poll_error: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class SummaryDocument(Base):
    """A document sent in a summary or voided communication: its line, the state it had before (to go
    back to when the authority rejects) and the reason given for voiding it."""

    __tablename__ = "summary_documents"

    summary_id: Mapped[int] = mapped_column(ForeignKey("summaries.id", ondelete="CASCADE"), primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    line: Mapped[int] = mapped_column(Integer)
    previous_state: Mapped[str] = mapped_column(String(2))
    reason: Mapped[str] = mapped_column(String(500), default="")


class AuthorityTicket(Base):
    """The simulated tax authority's tickets (summaries and voided communications it received).

    ``received_at`` is the reception time in Lima (naive), ``ready_at`` the moment (naive UTC) from which
    the ticket is processed; ``status_code`` is "98" until then, "0" or "99" after, with ``cdr_zip``.
    """

    __tablename__ = "authority_tickets"
    __table_args__ = (UniqueConstraint("issuer_ruc", "filename", name="uq_authority_ticket_file"),)

    ticket: Mapped[str] = mapped_column(String(32), primary_key=True)
    issuer_ruc: Mapped[str] = mapped_column(String(11))
    filename: Mapped[str] = mapped_column(String(64))
    received_at: Mapped[dt.datetime] = mapped_column(DateTime)
    ready_at: Mapped[dt.datetime] = mapped_column(DateTime)
    zip_content: Mapped[bytes] = mapped_column(LargeBinary)
    status_code: Mapped[str] = mapped_column(String(4), default="98")
    cdr_zip: Mapped[bytes | None] = mapped_column(LargeBinary)
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class OtherDocument(Base):
    """A retention (``document_type_id`` 20) or perception (40) the tenant issued, with SUNAT's answer.

    ``party_*`` is the supplier (retention) or customer (perception); ``regime`` its catalog 23 / 22 code
    with ``percent``; ``total`` the amount retained or perceived and ``total_net`` the amount paid or
    collected, in soles. ``data`` keeps the read request (its related documents and payments) for the
    PDF and the lists; ``xml`` the signed XML, ``cdr_zip`` SUNAT's CDR.
    """

    __tablename__ = "other_documents"
    __table_args__ = (
        UniqueConstraint(
            "tenant_id", "document_type_id", "series", "number", name="uq_other_document_number"
        ),
        Index("ix_other_documents_tenant_date", "tenant_id", "document_type_id", "date_of_issue"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(36), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    document_type_id: Mapped[str] = mapped_column(String(2))
    series: Mapped[str] = mapped_column(String(4))
    number: Mapped[int] = mapped_column(Integer)
    filename: Mapped[str] = mapped_column(String(64))
    date_of_issue: Mapped[dt.date] = mapped_column(Date)
    time_of_issue: Mapped[dt.time] = mapped_column(Time)
    party_identity_type: Mapped[str] = mapped_column(String(1))
    party_number: Mapped[str] = mapped_column(String(15))
    party_name: Mapped[str] = mapped_column(String(1500))
    regime: Mapped[str] = mapped_column(String(2))
    percent: Mapped[Decimal] = mapped_column(Numeric(6, 3, asdecimal=True))
    total: Mapped[Decimal] = mapped_column(Money)
    total_net: Mapped[Decimal] = mapped_column(Money)
    state_type_id: Mapped[str] = mapped_column(String(2))
    hash: Mapped[str] = mapped_column(String(100), default="")
    response: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: How many answers the authority gave so far, and when a document it did not process (an
    #: exception) is sent again (naive UTC; None once answered with a state).
    send_attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    next_send_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    xml: Mapped[bytes] = mapped_column(LargeBinary)
    cdr_zip: Mapped[bytes | None] = mapped_column(LargeBinary)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class OtherDocumentReversal(Base):
    """A retention or perception in a reversion (RR, a ``summaries`` row of type "RR"): its line, the
    state it had before (to go back to when SUNAT rejects the reversion) and the reason."""

    __tablename__ = "other_document_reversals"

    summary_id: Mapped[int] = mapped_column(ForeignKey("summaries.id", ondelete="CASCADE"), primary_key=True)
    other_document_id: Mapped[int] = mapped_column(
        ForeignKey("other_documents.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    line: Mapped[int] = mapped_column(Integer)
    previous_state: Mapped[str] = mapped_column(String(2))
    reason: Mapped[str] = mapped_column(String(500), default="")


class DispatchGuide(Base):
    """A dispatch guide (09 remitente, 31 transportista) with its signed XML, PDF and the GRE answer.

    ``state_type_id`` is 01 (registered, not sent), 03 (sent, ticket in process), 05 (accepted) or 09
    (rejected); ``ticket`` is the GRE API's ``numTicket``; ``qr_url`` the link the CDR gives; ``data_json``
    the guide as read from the request (to render its PDF again).
    """

    __tablename__ = "dispatches"
    __table_args__ = (
        UniqueConstraint("tenant_id", "document_type_id", "series", "number", name="uq_dispatch_number"),
        Index("ix_dispatches_tenant_date", "tenant_id", "date_of_issue"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(36), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    establishment_id: Mapped[int] = mapped_column(ForeignKey("establishments.id"))
    document_type_id: Mapped[str] = mapped_column(String(2))
    series: Mapped[str] = mapped_column(String(4))
    number: Mapped[int] = mapped_column(Integer)
    filename: Mapped[str] = mapped_column(String(64))
    date_of_issue: Mapped[dt.date] = mapped_column(Date)
    time_of_issue: Mapped[dt.time] = mapped_column(Time)
    date_of_shipping: Mapped[dt.date] = mapped_column(Date)
    transfer_reason: Mapped[str] = mapped_column(String(2), default="")
    transport_mode: Mapped[str] = mapped_column(String(2), default="")
    customer_number: Mapped[str] = mapped_column(String(20))
    customer_name: Mapped[str] = mapped_column(String(1500))
    total_weight: Mapped[Decimal] = mapped_column(Numeric(15, 3))
    weight_unit: Mapped[str] = mapped_column(String(3))
    state_type_id: Mapped[str] = mapped_column(String(2), default="01")
    hash: Mapped[str] = mapped_column(String(100), default="")
    ticket: Mapped[str | None] = mapped_column(String(64))
    qr_url: Mapped[str] = mapped_column(Text, default="")
    response: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    data_json: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    xml: Mapped[bytes] = mapped_column(LargeBinary)
    pdf: Mapped[bytes | None] = mapped_column(LargeBinary)  # rendered after the guide is stored
    cdr_zip: Mapped[bytes | None] = mapped_column(LargeBinary)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class GreTicket(Base):
    """The simulated GRE API's tickets (the guides it received), as ``authority_tickets`` for summaries:
    ``ticket`` is a UUID, ``status_code`` "98" until processed, then "0" or "99" with ``cdr_zip``."""

    __tablename__ = "gre_tickets"
    __table_args__ = (Index("ix_gre_tickets_file", "issuer_ruc", "filename"),)

    ticket: Mapped[str] = mapped_column(String(64), primary_key=True)
    issuer_ruc: Mapped[str] = mapped_column(String(11))
    filename: Mapped[str] = mapped_column(String(64))
    received_at: Mapped[dt.datetime] = mapped_column(DateTime)
    ready_at: Mapped[dt.datetime] = mapped_column(DateTime)
    zip_content: Mapped[bytes] = mapped_column(LargeBinary)
    status_code: Mapped[str] = mapped_column(String(4), default="98")
    cdr_zip: Mapped[bytes | None] = mapped_column(LargeBinary)
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


DOCUMENTS: Table = Document.__table__  # type: ignore[assignment]
ARTIFACTS: Table = Artifact.__table__  # type: ignore[assignment]
SERIES: Table = Series.__table__  # type: ignore[assignment]
AUTHORITY_RECORDS: Table = AuthorityRecord.__table__  # type: ignore[assignment]
SUMMARIES: Table = Summary.__table__  # type: ignore[assignment]
SUMMARY_DOCUMENTS: Table = SummaryDocument.__table__  # type: ignore[assignment]
AUTHORITY_TICKETS: Table = AuthorityTicket.__table__  # type: ignore[assignment]
SUNAT_FAULTS: Table = SunatFault.__table__  # type: ignore[assignment]
JOBS: Table = Job.__table__  # type: ignore[assignment]
EMAIL_DELIVERIES: Table = EmailDelivery.__table__  # type: ignore[assignment]
JOB_LEASE_EXPIRIES: Table = JobLeaseExpiry.__table__  # type: ignore[assignment]
STATE_CHANGES: Table = StateChange.__table__  # type: ignore[assignment]
TENANTS: Table = Tenant.__table__  # type: ignore[assignment]
OTHER_DOCUMENTS: Table = OtherDocument.__table__  # type: ignore[assignment]
OTHER_DOCUMENT_REVERSALS: Table = OtherDocumentReversal.__table__  # type: ignore[assignment]
DISPATCHES: Table = DispatchGuide.__table__  # type: ignore[assignment]
GRE_TICKETS: Table = GreTicket.__table__  # type: ignore[assignment]
#: Statements built once and reused with parameter dicts (cheaper than building one per request).
INSERT_DOCUMENT = DOCUMENTS.insert().returning(DOCUMENTS.c.id)
INSERT_ARTIFACT = ARTIFACTS.insert()


def _artifact_upsert(insert: Any) -> Any:
    statement = insert(ARTIFACTS)
    return statement.on_conflict_do_update(
        index_elements=["document_id", "kind"], set_={"content": statement.excluded.content}
    )


#: A stored file written over the one of its kind, if any (a CDR of a document sent again).
REPLACE_ARTIFACT = {
    "postgresql": _artifact_upsert(postgresql_insert),
    "sqlite": _artifact_upsert(sqlite_insert),
}
#: One answer of the authority: the state, the response, one more attempt, and the next sending time,
#: which stays empty for a document the service does not owe (sent by the client through /send).
UPDATE_ANSWER = (
    DOCUMENTS.update()
    .where(DOCUMENTS.c.id == bindparam("document_id"), DOCUMENTS.c.state_type_id == bindparam("read_state"))
    .values(
        state_type_id=bindparam("state"),
        response=bindparam("response"),
        regularize_shipping=bindparam("regularize"),
        send_attempts=DOCUMENTS.c.send_attempts + 1,
        next_send_at=case(
            (DOCUMENTS.c.next_send_at.is_(None), null()), else_=bindparam("retry_at", type_=DateTime())
        ),
    )
)


#: The columns a new document row is inserted with (the id and the timestamps come from the database).
_DOCUMENT_COLUMNS = tuple(c.key for c in DOCUMENTS.columns if c.key not in ("id", "created_at", "updated_at"))
_ARTIFACT_COLUMNS = ("document_id", "kind", "content")


def _column_default(column: Any) -> Any:
    default = column.default
    if default is None:
        return None
    return default.arg(None) if default.is_callable else default.arg


_DOCUMENT_DEFAULTS = {key: _column_default(DOCUMENTS.c[key]) for key in _DOCUMENT_COLUMNS}


def document_values(document: Document) -> dict[str, Any]:
    """The values a new row of ``document`` is inserted with (a ``None`` attribute takes the column's
    default, as when a Core insert leaves the key out)."""
    values = {}
    for key in _DOCUMENT_COLUMNS:
        value = getattr(document, key)
        values[key] = _DOCUMENT_DEFAULTS[key] if value is None else value
    return values


_NEW_DOCUMENT = (
    DOCUMENTS.insert()
    .values({key: bindparam(key, type_=DOCUMENTS.c[key].type) for key in _DOCUMENT_COLUMNS})
    .returning(DOCUMENTS.c.id)
    .cte("new_document")
)
#: A new document and its signed XML in one statement (PostgreSQL: an INSERT inside a WITH).
INSERT_DOCUMENT_WITH_XML = (
    ARTIFACTS.insert()
    .from_select(
        list(_ARTIFACT_COLUMNS),
        select(_NEW_DOCUMENT.c.id, literal_column("'xml'"), bindparam("xml", type_=LargeBinary())),
    )
    .returning(ARTIFACTS.c.document_id)
)


def store_document(connection: Connection, document: Document, xml: bytes) -> int:
    """Insert a new document row with its signed XML; return the row's id.

    One statement on PostgreSQL, where issuing runs it under the series' lock: a round trip fewer before
    the commit lets the next issuer of the series have its number. SQLite, in process, has no round
    trips to save (and no INSERT inside a WITH)."""
    values = document_values(document)
    if connection.dialect.name == "postgresql":
        both = direct(INSERT_DOCUMENT_WITH_XML, connection.dialect)
        return int(both.scalar(connection, {**values, "xml": xml}))
    document_id = int(
        direct(INSERT_DOCUMENT, connection.dialect, _DOCUMENT_COLUMNS).scalar(connection, values)
    )
    store_artifact(connection, document_id, "xml", xml)
    return document_id


def store_artifact(connection: Connection, document_id: int, kind: str, content: bytes) -> None:
    """Insert a stored file of a document (``xml``, ``cdr``, ``pdf-a4``...)."""
    values = {"document_id": document_id, "kind": kind, "content": content}
    direct(INSERT_ARTIFACT, connection.dialect, _ARTIFACT_COLUMNS).run(connection, values)


def replace_artifact(connection: Connection, document_id: int, kind: str, content: bytes) -> None:
    """Store a file of a document, written over the one of that kind it has: two sends of one document
    racing (two nodes, or a client's /send beside the pending sender) both store their CDR, the later
    one kept, instead of the second failing on the (document, kind) key."""
    values = {"document_id": document_id, "kind": kind, "content": content}
    statement = REPLACE_ARTIFACT[connection.dialect.name]
    direct(statement, connection.dialect, _ARTIFACT_COLUMNS).run(connection, values)


def store_answer(
    connection: Connection,
    document_id: int,
    state: str,
    response: dict[str, Any],
    regularize: bool,
    retry_at: dt.datetime | None = None,
    *,
    read_state: str,
) -> bool:
    """Record the authority's answer on a document: its state, the response, the regularize flag, one
    more attempt and, for a document the service owes, when to send it again (``None``: never).

    A compare-and-set on the state the sender read before sending (``read_state``): when another send
    of the document stored its answer meanwhile (an accepted one, say, while this send was answered
    "in process"), or the document moved on (a voiding), nothing is written and False is returned."""
    values = answer_parameters(document_id, state, response, regularize, retry_at, read_state=read_state)
    return direct(UPDATE_ANSWER, connection.dialect).run(connection, values) == 1


def answer_parameters(
    document_id: int,
    state: str,
    response: dict[str, Any],
    regularize: bool,
    retry_at: dt.datetime | None,
    *,
    read_state: str,
) -> dict[str, Any]:
    """The parameters of :data:`UPDATE_ANSWER` (:func:`store_answer`'s, which says what they mean)."""
    return {
        "document_id": document_id,
        "read_state": read_state,
        "state": state,
        "response": response,
        "regularize": regularize,
        "retry_at": retry_at,
    }


# -- the commercial back office (customers and suppliers, products, stock, sale notes) ----------------

Quantity = Numeric(24, 4, asdecimal=True)
Price = Numeric(18, 6, asdecimal=True)

#: How many first characters of a name or description the ordered indexes hold. A PostgreSQL btree entry
#: cannot exceed 2,704 bytes, and a 1,500-character name of 3- and 4-byte characters (CJK, emoji) is 6,000:
#: 200 characters are at most 800 bytes, whatever they are. Lists are ordered by this prefix, then by a
#: unique column: they differ from the order by (whole text, that column) only among texts sharing their
#: first 200 characters, which come in the unique column's order; the order stays total and the same on
#: SQLite and PostgreSQL.
KEY_CHARACTERS = 200


class Person(Base):
    """A customer or supplier (``type`` customers | suppliers); the number is unique per type. Documents'
    ``datos_del_cliente_o_receptor`` upsert the customers of this table."""

    __tablename__ = "persons"
    __table_args__ = (
        UniqueConstraint("tenant_id", "type", "number", name="uq_person_number"),
        # covers the records' filter and order: a page's ids come from it alone (the id is INCLUDEd on
        # PostgreSQL; an SQLite index holds the rowid). It holds name_key, never the whole name.
        Index(
            "ix_persons_tenant_type_name",
            "tenant_id",
            "type",
            "name_key",
            "number",
            postgresql_include=["id"],
        ),
        # search by name or number: a pg_trgm GIN index on PostgreSQL (migration 0008; a plain one elsewhere)
        Index(
            "ix_persons_search_text",
            "search_text",
            postgresql_using="gin",
            postgresql_ops={"search_text": "gin_trgm_ops"},
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    type: Mapped[str] = mapped_column(String(10))
    identity_document_type_id: Mapped[str] = mapped_column(String(2))
    number: Mapped[str] = mapped_column(String(20))
    name: Mapped[str] = mapped_column(String(1500))
    trade_name: Mapped[str] = mapped_column(String(1500), default="")
    country_id: Mapped[str] = mapped_column(String(2), default="PE")
    department_id: Mapped[str] = mapped_column(String(2), default="")
    province_id: Mapped[str] = mapped_column(String(4), default="")
    district_id: Mapped[str] = mapped_column(String(6), default="")
    address: Mapped[str] = mapped_column(String(500), default="")
    telephone: Mapped[str] = mapped_column(String(30), default="")
    email: Mapped[str] = mapped_column(String(254), default="")
    perception_agent: Mapped[bool] = mapped_column(Boolean, default=False)
    percentage_perception: Mapped[Decimal] = mapped_column(default=Decimal(0))
    internal_code: Mapped[str] = mapped_column(String(100), default="")
    #: number and name folded (facturador.store.search): what ``?input=`` searches
    search_text: Mapped[str] = mapped_column(
        Text, default=column_default("number", "name"), server_default=""
    )
    #: the name's first :data:`KEY_CHARACTERS` characters, computed by the database (migration 0012: STORED
    #: on PostgreSQL, VIRTUAL on SQLite): the records' order, held by their index (a column, not an
    #: expression, so that PostgreSQL pages from the index alone)
    name_key: Mapped[str] = mapped_column(
        String(KEY_CHARACTERS), Computed(f"substr(name, 1, {KEY_CHARACTERS})")
    )
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class Item(Base):
    """A product or service; ``internal_id`` (the documents' ``codigo_interno``) is unique per tenant.
    ``item_unit_types`` is its price list (``[{description, unit_type_id, quantity_unit, price1..3,
    price_default}]``)."""

    __tablename__ = "items"
    __table_args__ = (
        UniqueConstraint("tenant_id", "internal_id", name="uq_item_internal_id"),
        # search-items' ordered indexes (expressions) are declared after ITEMS
        # search by description or internal code: a pg_trgm GIN index on PostgreSQL (migration 0008)
        Index(
            "ix_items_search_text",
            "search_text",
            postgresql_using="gin",
            postgresql_ops={"search_text": "gin_trgm_ops"},
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    internal_id: Mapped[str] = mapped_column(String(30))
    description: Mapped[str] = mapped_column(String(500))
    name: Mapped[str] = mapped_column(String(500), default="")
    second_name: Mapped[str] = mapped_column(String(500), default="")
    item_type_id: Mapped[str] = mapped_column(String(2), default="01")
    item_code: Mapped[str] = mapped_column(String(250), default="")
    item_code_gs1: Mapped[str] = mapped_column(String(100), default="")
    barcode: Mapped[str] = mapped_column(String(150), default="")
    model: Mapped[str] = mapped_column(String(100), default="")
    brand: Mapped[str] = mapped_column(String(100), default="")
    category: Mapped[str] = mapped_column(String(100), default="")
    unit_type_id: Mapped[str] = mapped_column(String(3), default="NIU")
    currency_type_id: Mapped[str] = mapped_column(String(3), default="PEN")
    sale_unit_price: Mapped[Decimal] = mapped_column(Price, default=Decimal(0))
    purchase_unit_price: Mapped[Decimal] = mapped_column(Price, default=Decimal(0))
    sale_affectation_igv_type_id: Mapped[str] = mapped_column(String(2), default="10")
    purchase_affectation_igv_type_id: Mapped[str] = mapped_column(String(2), default="10")
    has_igv: Mapped[bool] = mapped_column(Boolean, default=True)
    calculate_quantity: Mapped[bool] = mapped_column(Boolean, default=False)
    is_set: Mapped[bool] = mapped_column(Boolean, default=False)
    stock_min: Mapped[Decimal] = mapped_column(Quantity, default=Decimal(0))
    item_unit_types: Mapped[list[Any]] = mapped_column(JSON, default=list)
    #: description and internal code folded (facturador.store.search): what search-items looks in
    search_text: Mapped[str] = mapped_column(
        Text, default=column_default("description", "internal_id"), server_default=""
    )
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class Warehouse(Base):
    """The warehouse of an establishment (one per establishment)."""

    __tablename__ = "warehouses"

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    establishment_id: Mapped[int] = mapped_column(ForeignKey("establishments.id"), unique=True)
    description: Mapped[str] = mapped_column(String(255))


class ItemStock(Base):
    """The stock of an item in a warehouse."""

    __tablename__ = "item_stocks"

    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), primary_key=True)
    warehouse_id: Mapped[int] = mapped_column(ForeignKey("warehouses.id"), primary_key=True, index=True)
    stock: Mapped[Decimal] = mapped_column(Quantity, default=Decimal(0))


class InventoryMove(Base):
    """One line of an item's kardex: an input (positive quantity) or output (negative) of a warehouse,
    made by an inventory transaction, a document, a sale note or a dispatch guide, with the balance after
    it."""

    __tablename__ = "inventory_moves"
    __table_args__ = (
        Index("ix_inventory_moves_item", "tenant_id", "item_id", "id"),
        Index("ix_inventory_moves_dispatch", "dispatch_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    warehouse_id: Mapped[int] = mapped_column(ForeignKey("warehouses.id"))
    type: Mapped[str] = mapped_column(String(6))  # input | output
    inventory_transaction_id: Mapped[str | None] = mapped_column(String(2))
    quantity: Mapped[Decimal] = mapped_column(Quantity)
    balance: Mapped[Decimal] = mapped_column(Quantity)
    description: Mapped[str] = mapped_column(String(255), default="")
    document_id: Mapped[int | None] = mapped_column(ForeignKey("documents.id", ondelete="SET NULL"))
    sale_note_id: Mapped[int | None] = mapped_column(ForeignKey("sale_notes.id", ondelete="SET NULL"))
    dispatch_id: Mapped[int | None] = mapped_column(ForeignKey("dispatches.id", ondelete="SET NULL"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class SaleNote(Base):
    """A nota de venta (internal document 80, never sent to SUNAT); ``document_id`` is the factura or
    boleta made from it (at most one)."""

    __tablename__ = "sale_notes"
    __table_args__ = (
        UniqueConstraint("tenant_id", "series", "number", name="uq_sale_note_number"),
        Index("ix_sale_notes_tenant_date", "tenant_id", "date_of_issue"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(36), unique=True)
    establishment_id: Mapped[int] = mapped_column(ForeignKey("establishments.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id"))
    series: Mapped[str] = mapped_column(String(4))
    number: Mapped[int] = mapped_column(Integer)
    filename: Mapped[str] = mapped_column(String(64))
    date_of_issue: Mapped[dt.date] = mapped_column(Date)
    time_of_issue: Mapped[dt.time] = mapped_column(Time)
    customer_id: Mapped[int] = mapped_column(ForeignKey("persons.id"))
    currency_type_id: Mapped[str] = mapped_column(String(3))
    exchange_rate_sale: Mapped[Decimal] = mapped_column(Numeric(12, 6), default=Decimal(1))
    total_exportation: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_free: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_unaffected: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_exonerated: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_taxed: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_igv: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_taxes: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_value: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total: Mapped[Decimal] = mapped_column(default=Decimal(0))
    lines: Mapped[list[Any]] = mapped_column(JSON, default=list)
    format_pdf: Mapped[str] = mapped_column(String(16), default="a4")
    document_id: Mapped[int | None] = mapped_column(ForeignKey("documents.id"), unique=True)
    #: Set while a factura or boleta is being made from the note (no second conversion meanwhile).
    converting: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The quotation the note was made from (a quotation becomes at most one note).
    quotation_id: Mapped[int | None] = mapped_column(
        ForeignKey("quotations.id", name="fk_sale_notes_quotation"), unique=True
    )
    data_json: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Quotation(Base):
    """A quotation (cotización): ``prefix``-``number`` with a correlative per establishment."""

    __tablename__ = "quotations"
    __table_args__ = (
        UniqueConstraint("tenant_id", "establishment_id", "prefix", "number", name="uq_quotation_number"),
        Index("ix_quotations_tenant_created", "tenant_id", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(36), unique=True)
    establishment_id: Mapped[int] = mapped_column(ForeignKey("establishments.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    prefix: Mapped[str] = mapped_column(String(10), default="COT")
    number: Mapped[int] = mapped_column(Integer)
    date_of_issue: Mapped[dt.date] = mapped_column(Date)
    time_of_issue: Mapped[dt.time] = mapped_column(Time)
    date_of_due: Mapped[dt.date | None] = mapped_column(Date)
    delivery_date: Mapped[dt.date | None] = mapped_column(Date)
    customer_id: Mapped[int] = mapped_column(ForeignKey("persons.id"))
    currency_type_id: Mapped[str] = mapped_column(String(3))
    exchange_rate_sale: Mapped[Decimal] = mapped_column(Numeric(12, 6), default=Decimal(1))
    total_exportation: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_free: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_unaffected: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_exonerated: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_taxed: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_igv: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_taxes: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total_value: Mapped[Decimal] = mapped_column(default=Decimal(0))
    total: Mapped[Decimal] = mapped_column(default=Decimal(0))
    lines: Mapped[list[Any]] = mapped_column(JSON, default=list)
    description: Mapped[str] = mapped_column(String(500), default="")
    state_type_id: Mapped[str] = mapped_column(String(2), default="01")
    #: True once a sale note was made from it (the real services' ``changed``).
    changed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    data_json: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class QuotationCounter(Base):
    """The correlative counter of a quotation prefix in an establishment (``COT-n``): the last number
    used, taken as a series' counter is (:mod:`facturador.domain.numbering`)."""

    __tablename__ = "quotation_counters"

    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True)
    establishment_id: Mapped[int] = mapped_column(ForeignKey("establishments.id"), primary_key=True)
    prefix: Mapped[str] = mapped_column(String(10), primary_key=True)
    last_number: Mapped[int] = mapped_column(Integer)


PERSONS: Table = Person.__table__  # type: ignore[assignment]
ITEMS: Table = Item.__table__  # type: ignore[assignment]


def text_key(column: Any, name: str) -> Label[str]:
    """The first :data:`KEY_CHARACTERS` characters of ``column``, labelled ``name``: what a list orders by
    and its expression index holds. The bounds are literals, never bound parameters, so that PostgreSQL
    matches the expression of the index in every plan."""
    return func.substr(column, literal_column("1"), literal_column(str(KEY_CHARACTERS))).label(name)


#: The order of the customers' and suppliers' records: name (its first 200 characters), then the number,
#: which is unique per type.
PERSON_ORDER = (PERSONS.c.name_key, PERSONS.c.number)
#: The order of search-items: description (its first 200 characters), then the id.
ITEM_ORDER = (text_key(ITEMS.c.description, "description_key"), ITEMS.c.id)

# search-items' filter and order: a search walks it by description and stops at 20 matches. SQLite (no
# size limit) reads the folded text from the index, not the rows; PostgreSQL, whose btree entries cannot
# hold search_text, gathers matches through the trigram index instead and walks this one for the ids.
Index(
    "ix_items_search", ITEMS.c.tenant_id, ITEMS.c.active, ITEM_ORDER[0].element, ITEMS.c.search_text
).ddl_if(dialect="sqlite")
Index("ix_items_order", ITEMS.c.tenant_id, ITEMS.c.active, ITEM_ORDER[0].element, ITEMS.c.id).ddl_if(
    dialect="postgresql"
)


def include_object(dialect: str) -> Callable[[Any, str | None, str, bool, Any], bool]:
    """An Alembic ``include_object`` for ``dialect``: leaves out the indexes declared for other dialects
    (``Index.ddl_if``), which autogenerate would otherwise compare."""

    def include(item: Any, name: str | None, kind: str, reflected: bool, compare_to: Any) -> bool:
        condition = getattr(item, "_ddl_if", None)
        return condition is None or condition.dialect in (None, dialect)

    return include


WAREHOUSES: Table = Warehouse.__table__  # type: ignore[assignment]
ITEM_STOCKS: Table = ItemStock.__table__  # type: ignore[assignment]
INVENTORY_MOVES: Table = InventoryMove.__table__  # type: ignore[assignment]
SALE_NOTES: Table = SaleNote.__table__  # type: ignore[assignment]
ESTABLISHMENTS: Table = Establishment.__table__  # type: ignore[assignment]
QUOTATIONS: Table = Quotation.__table__  # type: ignore[assignment]
QUOTATION_COUNTERS: Table = QuotationCounter.__table__  # type: ignore[assignment]
USERS: Table = User.__table__  # type: ignore[assignment]


class PadronTaxpayer(Base):
    """A line of SUNAT's padrón reducido (shared by every tenant): the RUC's name, state (ACTIVO, BAJA...),
    domicile condition (HABIDO, NO HABIDO...), ubigeo and address; ``row_hash`` a digest of the line, so a
    re-import writes only what changed (migration 0024)."""

    __tablename__ = "padron_taxpayers"

    ruc: Mapped[str] = mapped_column(String(11), primary_key=True)
    name: Mapped[str] = mapped_column(String(500))
    state: Mapped[str] = mapped_column(String(40))
    condition: Mapped[str] = mapped_column(String(40))
    ubigeo: Mapped[str] = mapped_column(String(6))
    address: Mapped[str] = mapped_column(String(500))
    row_hash: Mapped[str] = mapped_column(String(16))


class PadronImport(Base):
    """An import of the padrón: its source, the signature of the file read, and its checkpoint (the byte
    offset of the text committed, the lines read and written); ``finished_at`` is None while resumable."""

    __tablename__ = "padron_imports"
    __table_args__ = (Index("ix_padron_imports_signature", "signature"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    source: Mapped[str] = mapped_column(String(1000))
    signature: Mapped[str] = mapped_column(String(64))
    offset: Mapped[int] = mapped_column(BigInteger)
    lines: Mapped[int] = mapped_column(BigInteger)
    written: Mapped[int] = mapped_column(BigInteger)
    started_at: Mapped[dt.datetime] = mapped_column(DateTime)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class ExchangeRate(Base):
    """SUNAT's published exchange rate of a day (soles per dollar, buy and sell), cached once fetched."""

    __tablename__ = "exchange_rates"

    date: Mapped[dt.date] = mapped_column(Date, primary_key=True)
    purchase: Mapped[Decimal] = mapped_column(Numeric(10, 4, asdecimal=True))
    sale: Mapped[Decimal] = mapped_column(Numeric(10, 4, asdecimal=True))
    fetched_at: Mapped[dt.datetime] = mapped_column(DateTime)


PADRON: Table = PadronTaxpayer.__table__  # type: ignore[assignment]
PADRON_IMPORTS: Table = PadronImport.__table__  # type: ignore[assignment]
EXCHANGE_RATES: Table = ExchangeRate.__table__  # type: ignore[assignment]
