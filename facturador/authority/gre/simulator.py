"""SUNAT's GRE REST API as plain Python: OAuth2 tokens, reception of a guide, its ticket.

The HTTP face is :mod:`facturador.authority.gre.app`; this module holds what it answers
(``docs/sunat_domain.md``, transport):

- :meth:`GreSimulator.token`: the ``password`` grant of ``api-seguridad`` (client id and secret + the SOL
  user ``RUC`` + user and its password); tokens are HMAC-signed, carry the taxpayer's RUC and expire
  after ``token_ttl`` seconds (they survive a restart of the simulator, as long as the secret is kept);
- :meth:`GreSimulator.receive`: ``POST .../comprobantes/{name}`` with ``{archivo: {nomArchivo, arcGreZip,
  hashZip}}``: the name, base64 zip and its SHA-256 are checked, the file is kept under a ticket (a UUID)
  and ``{numTicket, fecRecepcion}`` answered; a file SUNAT does not take answers :class:`GreError` (HTTP
  422 ``{cod, msg, errors}``);
- :meth:`GreSimulator.status`: ``GET .../envios/{numTicket}``: ``codRespuesta`` "98" while in process,
  then the guide is processed once with :func:`~facturador.authority.gre.rules.check_guide` and the
  answer is "0" (accepted, CDR with the QR URL) or "99" (``error: {numError, desError}`` and the CDR).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import re
import secrets
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol

from lxml import etree

from facturador.authority import cdr as cdr_mod
from facturador.authority.bearer import TokenError, TokenRefused, issue_token, read_token
from facturador.authority.detail import described
from facturador.authority.gateway import TICKET_DONE, TICKET_IN_PROCESS, TICKET_REJECTED
from facturador.authority.gre.rules import check_guide, gre_file_name
from facturador.authority.packaging import PackagingError, base_name, read_zip
from facturador.authority.rules.context import Answer, message
from facturador.authority.rules.identification import verify_document_signature
from facturador.authority.tickets import InMemoryTicketStore, TicketRecord, TicketStore
from facturador.ubl.signing import SigningIdentity
from sunat.calendar import peru_now, peru_today
from sunat.identity import is_valid_ruc

__all__ = [
    "DEFAULT_TOKEN_TTL",
    "SIMULATOR_CLIENT_ID",
    "SIMULATOR_CLIENT_SECRET",
    "BetaCredentials",
    "Credentials",
    "GreError",
    "GreSimulator",
    "TokenError",
    "accepted_description",
    "qr_url",
]

logger = logging.getLogger(__name__)

#: SUNAT's tokens last an hour (``expires_in`` 3600).
DEFAULT_TOKEN_TTL = 3600
#: Seconds a GRE ticket answers 98 before it is processed.
DEFAULT_TICKET_DELAY = 2.0
#: The client credentials of the built-in simulator (like SUNAT's beta users, public by design).
SIMULATOR_CLIENT_ID = "facturador-gre-simulator"
SIMULATOR_CLIENT_SECRET = "facturador-gre-simulator-secret"
#: The SOL password every user of the simulator's beta credentials has (as ``MODDATOS`` on SUNAT beta).
BETA_PASSWORD = "MODDATOS"
#: Where SUNAT publishes a guide's QR (the CDR's ``cbc:DocumentDescription``).
QR_BASE = "https://e-factura.sunat.gob.pe/v1/contribuyente/gre/comprobantes/descargaqr"
SCOPE = "https://api-cpe.sunat.gob.pe"
_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")
_GUIDE_NAMES = {"09": "La Guia de Remision", "31": "La Guia de Remision Transportista"}


class GreError(Exception):
    """The GRE API refuses a request: ``status`` (401, 404, 422...) and SUNAT's ``cod`` / ``msg``."""

    def __init__(self, status: int, code: str, msg: str) -> None:
        super().__init__(f"{code}: {msg}")
        self.status = status
        self.code = code
        self.msg = msg

    def body(self) -> dict[str, Any]:
        return {"cod": self.code, "msg": self.msg, "errors": [{"cod": self.code, "msg": self.msg}]}


class Credentials(Protocol):
    """Who may get a token: returns the taxpayer's RUC for valid credentials, raises :class:`TokenError`."""

    def authenticate(self, client_id: str, client_secret: str, username: str, password: str) -> str:
        """The RUC of the SOL user ``username`` when every credential is right."""
        ...


@dataclass(frozen=True)
class BetaCredentials:
    """Credentials like SUNAT's test environment: the registered ``clients`` (id -> secret) with any SOL
    user ``<RUC>MODDATOS`` whose password is ``MODDATOS``, plus explicitly registered ``users``
    (``username -> password``, the username being RUC + SOL user)."""

    clients: dict[str, str]
    users: dict[str, str] | None = None

    def authenticate(self, client_id: str, client_secret: str, username: str, password: str) -> str:
        """See :class:`Credentials`: an unknown client or wrong secret is ``invalid_client`` (401), a
        wrong user or password ``invalid_grant`` (400)."""
        expected = self.clients.get(client_id)
        if expected is None or not hmac.compare_digest(expected.encode(), client_secret.encode()):
            raise TokenError(401, "invalid_client", "cliente no autorizado")
        ruc = username[:11]
        known = (self.users or {}).get(username)
        if known is not None:
            valid = hmac.compare_digest(known.encode(), password.encode())
        else:
            valid = username[11:].upper() == "MODDATOS" and password.upper() == BETA_PASSWORD
        if not (valid and is_valid_ruc(ruc)):
            raise TokenError(400, "invalid_grant", "Usuario o contraseña incorrectos")
        return ruc


def accepted_description(doc_type: str, doc_id: str) -> str:
    """SUNAT's wording for an accepted guide: ``La Guia de Remision T001-1 ha sido aceptada``."""
    return f"{_GUIDE_NAMES.get(doc_type, 'La Guia de Remision')} {doc_id} ha sido aceptada"


def qr_url(ruc: str, filename: str, digest: str) -> str:
    """The URL of a guide's QR as the CDR carries it (``...descargaqr?hashqr=...``)."""
    token = base64.urlsafe_b64encode(hashlib.sha256(f"{ruc}|{filename}|{digest}".encode()).digest()).decode()
    return f"{QR_BASE}?hashqr={token.rstrip('=')}"


def _utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC).replace(tzinfo=None)


_INFLIGHT: set[str] = set()
_INFLIGHT_LOCK = threading.Lock()


class GreSimulator:
    """SUNAT's GRE REST API behaviour (see module doc).

    ``identity`` signs the CDRs (or a function giving it, called on first use); ``credentials`` decides
    who gets a token; ``secret`` signs the tokens (random per instance unless given); ``ticket_delay`` is
    the seconds a ticket stays in process (or a function of the issuer's RUC giving them); ``tickets``
    keeps the received guides (in memory by default; the service keeps them in its database); ``clock``
    gives epoch seconds (token expiry, ticket delay); ``today`` the Lima date of the date rules.
    """

    def __init__(
        self,
        identity: SigningIdentity | Callable[[], SigningIdentity],
        credentials: Credentials,
        *,
        secret: bytes | None = None,
        tickets: TicketStore | None = None,
        token_ttl: int = DEFAULT_TOKEN_TTL,
        ticket_delay: float | Callable[[str], float] = DEFAULT_TICKET_DELAY,
        clock: Callable[[], float] = time.time,
        today: Callable[[], date] = peru_today,
    ) -> None:
        self._identity = identity
        self.credentials = credentials
        self.secret = secret or secrets.token_bytes(32)
        self.tickets: TicketStore = tickets if tickets is not None else InMemoryTicketStore()
        self.token_ttl = token_ttl
        self.ticket_delay = ticket_delay
        self.clock = clock
        self.today = today

    @property
    def identity(self) -> SigningIdentity:
        """The certificate that signs the CDRs (given, or loaded on first use by the function given)."""
        identity = self._identity
        if not isinstance(identity, SigningIdentity):
            identity = self._identity = identity()
        return identity

    # -- tokens -----------------------------------------------------------------------------------

    def token(self, client_id: str, form: dict[str, str]) -> dict[str, Any]:
        """Answer the token endpoint ``POST /v1/clientessol/{client_id}/oauth2/token/``."""
        if form.get("grant_type") != "password":
            raise TokenError(400, "unsupported_grant_type", "grant_type debe ser password")
        if form.get("scope", SCOPE) != SCOPE:
            raise TokenError(400, "invalid_scope", "scope no valido")
        if form.get("client_id", client_id) != client_id:
            raise TokenError(401, "invalid_client", "cliente no autorizado")
        ruc = self.credentials.authenticate(
            client_id, form.get("client_secret", ""), form.get("username", ""), form.get("password", "")
        )
        token = issue_token(self.secret, {"ruc": ruc, "cid": client_id}, self.token_ttl, self.clock())
        return {"access_token": token, "token_type": "JWT", "expires_in": self.token_ttl}

    def taxpayer(self, authorization: str | None) -> str:
        """The RUC of a valid, unexpired ``Bearer`` token; raises :class:`GreError` 401 otherwise."""
        try:
            claims = read_token(self.secret, authorization, self.clock())
        except TokenRefused as refused:
            raise GreError(401, "401", refused.message) from None
        return str(claims["ruc"])

    # -- reception --------------------------------------------------------------------------------

    def receive(self, ruc: str, name: str, body: Any) -> dict[str, str]:
        """Take a guide (see module doc); returns ``{numTicket, fecRecepcion}``."""
        archivo = body.get("archivo") if isinstance(body, dict) else None
        if not isinstance(archivo, dict):
            raise GreError(422, "0155", "El archivo no contiene el campo archivo")
        file_name, content, digest = (archivo.get(k) for k in ("nomArchivo", "arcGreZip", "hashZip"))
        if not all(isinstance(v, str) and v for v in (file_name, content, digest)):
            raise GreError(422, "0155", "El archivo debe tener nomArchivo, arcGreZip y hashZip")
        assert isinstance(file_name, str) and isinstance(content, str) and isinstance(digest, str)
        try:
            file = gre_file_name(base_name(name))
        except Answer as answer:
            raise GreError(422, answer.code, message(answer.code)) from None
        if file_name != f"{file.name}.zip":
            raise GreError(422, "0151", f"{message('0151')}: {file_name} no corresponde a {file.name}")
        if file.ruc != ruc:
            raise GreError(422, "0154", message("0154"))
        try:
            zip_bytes = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError):
            raise GreError(422, "0156", message("0156")) from None
        if not _HEX64.match(digest) or hashlib.sha256(zip_bytes).hexdigest() != digest.lower():
            raise GreError(422, "0156", "El hash del archivo ZIP (hashZip) no corresponde al archivo")
        try:
            entry, xml = read_zip(zip_bytes)
        except PackagingError as exc:
            raise GreError(422, exc.code, message(exc.code)) from None
        if entry[:-4] != file.name:
            raise GreError(422, "0161", message("0161"))
        previous = self.tickets.find(ruc, file.name)
        if previous is not None:
            if previous.status_code == TICKET_REJECTED:
                raise GreError(422, "1032", message("1032"))
            raise GreError(422, "1033", message("1033"))
        now = self.clock()
        received_at = datetime.combine(self.today(), peru_now().time().replace(microsecond=0))
        record = TicketRecord(
            ticket=str(uuid.uuid4()),
            issuer_ruc=ruc,
            filename=file.name,
            received_at=received_at,
            ready_at=_utc(now) + timedelta(seconds=self._delay(ruc)),
            zip_bytes=zip_bytes,
        )
        self.tickets.add(record)
        return {"numTicket": record.ticket, "fecRecepcion": received_at.strftime("%Y-%m-%dT%H:%M:%S")}

    def _delay(self, ruc: str) -> float:
        delay = self.ticket_delay
        return float(delay(ruc) if callable(delay) else delay)

    # -- tickets ----------------------------------------------------------------------------------

    def status(self, ruc: str, ticket: str) -> dict[str, Any]:
        """Answer ``GET .../envios/{numTicket}`` (see module doc); 404 for a ticket SUNAT never gave,
        or one of another taxpayer."""
        record = self.tickets.get(ticket)
        if record is None or record.issuer_ruc != ruc:
            raise GreError(404, "0127", message("0127"))
        if not record.processed and _utc(self.clock()) >= record.ready_at:
            record = self._process(record)
        if not record.processed:
            return {"codRespuesta": TICKET_IN_PROCESS}
        assert record.cdr_zip is not None
        answer: dict[str, Any] = {
            "codRespuesta": record.status_code,
            "arcCdr": base64.b64encode(record.cdr_zip).decode(),
            "indCdrGenerado": "1",
        }
        if record.status_code == TICKET_REJECTED:
            cdr = cdr_mod.read_cdr(record.cdr_zip)
            answer["error"] = {"numError": cdr.code, "desError": cdr.description}
        return answer

    def _process(self, record: TicketRecord) -> TicketRecord:
        """Process a received guide once (concurrent queries meanwhile still see 98)."""
        with _INFLIGHT_LOCK:
            if record.ticket in _INFLIGHT:
                return record
            _INFLIGHT.add(record.ticket)
        try:
            status_code, cdr_zip = self._judge(record)
            self.tickets.complete(record.ticket, status_code, cdr_zip)
        except Exception:  # a simulator bug: the ticket stays in process
            logger.exception("GRE simulator failed processing ticket %s", record.ticket)
            return record
        finally:
            with _INFLIGHT_LOCK:
                _INFLIGHT.discard(record.ticket)
        return self.tickets.get(record.ticket) or record

    def _judge(self, record: TicketRecord) -> tuple[str, bytes]:
        """Apply the rules to a received guide: status "0" or "99" and the CDR zip."""
        file = gre_file_name(record.filename)
        _entry, xml = read_zip(record.zip_bytes)
        description_url = ""
        notes: tuple[str, ...] = ()
        try:
            try:
                root = etree.fromstring(xml, cdr_mod.safe_parser())
            except etree.XMLSyntaxError as exc:
                raise Answer("0306", f'linea {exc.lineno}: DespatchAdvice valor: ""') from exc
            notes = check_guide(root, file, today=record.received_at.date())
            digest = verify_document_signature(root, xml)
            code, description = "0", accepted_description(file.doc_type, file.doc_id)
            description_url = qr_url(record.issuer_ruc, record.filename, digest)
        except Answer as answer:
            code = answer.code
            description = described(code, answer.detail)
            notes = ()
        cdr_xml = cdr_mod.build_cdr(
            self.identity,
            cdr_id=record.ticket,
            issuer_ruc=record.issuer_ruc,
            reference_id=file.doc_id,
            code=code,
            description=description,
            notes=notes,
            received_at=record.received_at,
            issued_at=datetime.combine(self.today(), peru_now().time().replace(microsecond=0)),
            document_description=description_url,
        )
        status = TICKET_DONE if code == "0" else TICKET_REJECTED
        return status, cdr_mod.zip_cdr(record.filename, cdr_xml)
