"""The SUNAT simulator as a SOAP endpoint: SUNAT's own services, paths and answers, for any client.

An ASGI application serving the paths of :data:`~facturador.authority.soap.protocol.PATHS` (mounted by
``facturador serve`` at ``/sunat``, or alone with ``facturador sunat``). It routes by path, since
billService and billConsultService share the ``getStatus`` element:

- billService (``/ol-ti-itcpfegem[-beta]/billService``): ``sendBill`` answers ``applicationResponse``,
  the CDR zip ``R-<name>.zip`` as SUNAT zips it (``R-<name>.xml``, then an empty ``dummy`` file);
  ``sendSummary`` a ``ticket``; ``getStatus(ticket)`` a ``status`` with ``statusCode`` ``0098`` while
  the ticket is in process (zero-padded, as SUNAT answers it), ``0`` or ``99`` with the CDR in
  ``content``;
- the other-CPE billService (``/ol-ti-itemision-otroscpe-gem[-beta]/billService``): the same for
  retentions, perceptions (``sendBill``) and their reversions (``sendSummary``);
- ``getStatusAR`` on billService (the operation SUNAT's 2026 WSDL adds): a document's CDR, answered
  like ``getStatusCdr`` in ``getStatusResponseAR`` / ``status``;
- billConsultService (``/ol-it-wsconscpegem/billConsultService``, answering in JAX-WS style: ``S`` /
  ``ns0`` prefixes, no header): ``getStatus`` of one document
  (``statusCode`` 0001 accepted, 0002 rejected, 0003 voided, 0011 unknown, 0012 another taxpayer's,
  0004-0010 a malformed question) and ``getStatusCdr`` (0004 "La constancia existe" with the CDR in
  ``content``; the same codes otherwise, 0125 when SUNAT holds no CDR of the document).

``GET <path>?wsdl`` serves SUNAT's WSDL shipped with the package, its ``soap:address`` rewritten to the
URL it was asked at, and the files it imports beside it (``<folder>/billService.ns1.wsdl``, or as SUNAT
names them, ``<path>?ns1.wsdl``), so a client can load the WSDL from the endpoint.

Every refusal is SUNAT's SOAP fault, HTTP 500, ``faultcode`` ``soap-env:Client.<code>`` (``Server.<code>``
for its system codes) and SUNAT's text: 0101 a missing or malformed WS-Security header, 0102 a wrong user
or password (:class:`Taxpayers` checks them), the simulator's exceptions (01xx-1xxx) and, as SUNAT
answers them, rejections (2xxx-3xxx: the number is consumed, ``getStatusCdr`` returns the CDR). A
taxpayer answered like an OSE (tenant setting ``authority_ose``, or the endpoint's ``ose`` option) gets a
rejection as its CDR instead. A request that is not SOAP 1.1 gets a fault without a code
(``VersionMismatch`` for SOAP 1.2); a body over :data:`MAX_BODY_BYTES` gets HTTP 413 with a fault.

What it accepts, as real clients send it: unqualified or qualified children, any prefixes, a
``SOAPAction`` quoted, unquoted or absent (the body says the operation), a ``Password`` with or without
its ``Type`` (only ``#PasswordText`` when given).

The failures of :mod:`.injection` (kept in the service's database) are applied per request.

It is a plain ASGI callable rather than a Starlette router: injecting a reset, a cut or a held answer
needs the server's own ``send`` (uvicorn's, whose transport can be aborted). Blocking work (the
simulator, the database) runs on worker threads of its own limiter (at most ``threads`` at once), never
on the default pool: the service sends to this endpoint from its own worker threads, and sharing one pool
could leave every thread waiting on a request that needs a thread to be answered.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import io
import logging
import re
import zipfile
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
from lxml import etree
from starlette.datastructures import URL
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from facturador.authority.cdr import build_exception_cdr, zip_cdr
from facturador.authority.gateway import AuthorityError, ResponseKind
from facturador.authority.packaging import base_name, read_zip
from facturador.authority.registry import RegistryKey
from facturador.authority.rules.context import message
from facturador.authority.simulator import SunatSimulator
from facturador.authority.soap.injection import Fault, FaultStore
from facturador.authority.soap.protocol import (
    BILL_SERVICE_NS,
    PASSWORD_TEXT,
    PATHS,
    SOAP_ENV_NS,
    Service,
    ServicePath,
    wsdl_dir,
)
from facturador.authority.tickets import TicketRecord
from sunat.catalogs import CDR_EXISTS, CONSULT_STATUS
from sunat.identity import is_valid_ruc

__all__ = ["MAX_BODY_BYTES", "SoapFault", "Taxpayer", "Taxpayers", "create_soap_app", "fault_code"]

logger = logging.getLogger(__name__)

#: The largest request taken (base64 of a zip of about 6 MB; SUNAT's own limits are far below).
MAX_BODY_BYTES = 8 * 1024 * 1024
SOAP12_ENV_NS = "http://www.w3.org/2003/05/soap-envelope"
XML_CONTENT_TYPE = b"text/xml; charset=utf-8"
#: SUNAT's system codes, answered as ``soap-env:Server.<code>`` (the others as ``Client.<code>``).
_SERVER_CODES = re.compile(r"^0(100|109|13[0-8]|20[0-4]|25[0-3])$")
#: The WSDL each service publishes, and the files it imports (served beside it).
_WSDL_FILES = {
    Service.BILL: ("billService.wsdl", ("billService.ns1.wsdl", "billService.xsd2.xsd")),
    Service.OTHER: ("billService.wsdl", ("billService.ns1.wsdl", "billService.xsd2.xsd")),
    Service.CONSULT: ("billConsultService.wsdl", ("billConsultService.ns1.wsdl", "billConsultService.xsd")),
}
_ADDRESS = re.compile(rb'(<(?:soap11|soap):address location=")[^"]*(")')
#: What an injected ``garbage`` answers: HTTP 200 and bytes that are not XML.
GARBAGE = b"\x1f\x8b\x08\x00 respuesta corrupta \xff\xfe<soap-env:Envelope"


class SoapFault(Exception):
    """A SOAP fault to answer: ``code`` is SUNAT's (None for a fault without one), ``text`` the
    ``faultstring`` (SUNAT's text of the code by default), ``status`` the HTTP status."""

    def __init__(
        self, code: str | None, text: str = "", *, status: int = 500, faultcode: str | None = None
    ) -> None:
        self.code = code
        self.text = text or (message(code) if code else "Error")
        self.status = status
        self.faultcode = faultcode or fault_code(code)
        super().__init__(f"{self.faultcode}: {self.text}")

    def envelope(self) -> bytes:
        """The fault as SUNAT writes it (``soap-env`` prefix, ``faultcode`` and ``faultstring``)."""
        root = etree.Element(f"{{{SOAP_ENV_NS}}}Envelope", nsmap={"soap-env": SOAP_ENV_NS})
        body = etree.SubElement(root, f"{{{SOAP_ENV_NS}}}Body")
        fault = etree.SubElement(body, f"{{{SOAP_ENV_NS}}}Fault")
        etree.SubElement(fault, "faultcode").text = self.faultcode
        etree.SubElement(fault, "faultstring").text = self.text
        return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def fault_code(code: str | None) -> str:
    """SUNAT's ``faultcode`` of a code: ``soap-env:Client.0102``, ``soap-env:Server.0109``; an unpadded
    code as SUNAT also writes it, ``soap-env:Server.200``."""
    if code is None:
        return "soap-env:Client"
    padded = code.zfill(4) if code.isdigit() else code
    side = "Server" if _SERVER_CODES.match(padded) else "Client"
    return f"soap-env:{side}.{code}"


@dataclass(frozen=True)
class Taxpayer:
    """Who signed in: the RUC of the user, the simulator that answers it (with that taxpayer's
    settings, ``user_ruc`` its RUC) and whether its rejections come as a CDR, as an OSE answers."""

    ruc: str
    simulator: SunatSimulator
    ose: bool = False


class Taxpayers(Protocol):
    """Who may use the endpoint (the service's tenants: ``facturador.domain.sunat_endpoint``)."""

    def sign_in(self, ruc: str, user: str, password: str, *, beta: bool) -> Taxpayer | None:
        """The taxpayer whose SOL ``user`` (without the RUC) and ``password`` these are, on a beta path
        (``beta``) or a production one; None when they are wrong."""
        ...


@dataclass
class Reply:
    """An answer: the response element's name, the wrapper of its fields (``status``, ``statusCdr``;
    None when they go straight in the element) and the fields in the schema's order (bytes are sent in
    base64). ``cdr`` names the field holding a CDR zip (an injected ``truncated-zip`` cuts it)."""

    element: str
    fields: dict[str, str | bytes] = field(default_factory=dict)
    wrapper: str | None = None
    cdr: str | None = None
    #: billConsultService is a JAX-WS service: ``S`` / ``ns0`` prefixes and no header (thegreenter/demo
    #: #28); billService writes ``soap-env`` / ``br`` and an empty header.
    jax_ws: bool = False

    def envelope(self) -> bytes:
        """The response envelope, as the SUNAT service answering it writes it (see ``jax_ws``)."""
        envelope_prefix, element_prefix = ("S", "ns0") if self.jax_ws else ("soap-env", "br")
        root = etree.Element(f"{{{SOAP_ENV_NS}}}Envelope", nsmap={envelope_prefix: SOAP_ENV_NS})
        if not self.jax_ws:
            etree.SubElement(root, f"{{{SOAP_ENV_NS}}}Header")
        body = etree.SubElement(root, f"{{{SOAP_ENV_NS}}}Body")
        element = etree.SubElement(
            body, f"{{{BILL_SERVICE_NS}}}{self.element}", nsmap={element_prefix: BILL_SERVICE_NS}
        )
        parent = etree.SubElement(element, self.wrapper) if self.wrapper else element
        for name, value in self.fields.items():
            text = base64.b64encode(value).decode("ascii") if isinstance(value, bytes) else value
            etree.SubElement(parent, name).text = text
        return etree.tostring(root, xml_declaration=True, encoding="UTF-8")

    def truncated(self) -> Reply:
        """The same reply with its CDR zip cut to half its bytes (itself when it carries none)."""
        value = self.fields.get(self.cdr or "")
        if not isinstance(value, bytes):
            return self
        cut = {**self.fields, self.cdr or "": value[: len(value) // 2]}
        return Reply(self.element, cut, self.wrapper, self.cdr, self.jax_ws)


@dataclass(frozen=True)
class SoapRequest:
    """A parsed request: the operation's element name, its children by local name, the credentials."""

    operation: str
    fields: dict[str, str]
    username: str
    password: str


def _local(node: etree._Element) -> str:
    return etree.QName(node).localname


def _children(node: etree._Element) -> list[etree._Element]:
    return [child for child in node if isinstance(child.tag, str)]


def _parser() -> etree.XMLParser:
    """A parser that neither resolves entities nor loads DTDs nor touches the network."""
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def parse_request(body: bytes) -> SoapRequest:
    """Read a SOAP 1.1 request; raises :class:`SoapFault` (no code, or 0101 for the security header)."""
    try:
        root = etree.fromstring(body, _parser())
    except etree.XMLSyntaxError as exc:
        raise SoapFault(None, f"El mensaje no es XML bien formado: {exc}") from None
    if root.tag == f"{{{SOAP12_ENV_NS}}}Envelope":
        raise SoapFault(None, "Solo se admite SOAP 1.1", faultcode="soap-env:VersionMismatch")
    if root.tag != f"{{{SOAP_ENV_NS}}}Envelope":
        raise SoapFault(None, f"El mensaje no es un sobre SOAP 1.1: {root.tag}")
    body_node = root.find(f"{{{SOAP_ENV_NS}}}Body")
    operations = _children(body_node) if body_node is not None else []
    if not operations:
        raise SoapFault(None, "El sobre SOAP no tiene cuerpo")
    operation = operations[0]
    if etree.QName(operation).namespace != BILL_SERVICE_NS:
        raise SoapFault(None, f"Cannot find dispatch method for {operation.tag}")
    fields = {_local(child): (child.text or "").strip() for child in _children(operation)}
    username, password = _credentials(root.find(f"{{{SOAP_ENV_NS}}}Header"))
    return SoapRequest(_local(operation), fields, username, password)


def _credentials(header: etree._Element | None) -> tuple[str, str]:
    """The UsernameToken's user name and password (0101 when missing or not ``#PasswordText``)."""
    token = None
    if header is not None:
        security = next(
            (n for n in header.iter() if isinstance(n.tag, str) and _local(n) == "Security"), None
        )
        if security is not None:
            token = next(
                (n for n in security.iter() if isinstance(n.tag, str) and _local(n) == "UsernameToken"), None
            )
    if token is None:
        raise SoapFault("0101", f"{message('0101')} - Detalle: no hay wsse:Security/UsernameToken")
    parts = {_local(child): child for child in _children(token)}
    user, password = parts.get("Username"), parts.get("Password")
    if user is None or password is None or not (user.text or "").strip():
        raise SoapFault("0101", f"{message('0101')} - Detalle: faltan Username o Password")
    kind = password.get("Type")
    if kind is not None and kind != PASSWORD_TEXT and not kind.endswith("#PasswordText"):
        raise SoapFault("0101", f"{message('0101')} - Detalle: solo se admite #PasswordText")
    return (user.text or "").strip(), password.text or ""


def sunat_zip(cdr_zip: bytes) -> bytes:
    """A CDR zip as SUNAT sends it: ``R-<name>.xml`` first (deflated), then an empty ``dummy`` file
    stored without compression (no slash: a file, not a folder)."""
    name, xml = read_zip(cdr_zip)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        entry = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
        entry.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(entry, xml)
        archive.writestr(zipfile.ZipInfo("dummy", date_time=(2000, 1, 1, 0, 0, 0)), b"")
    return out.getvalue()


def _content(text: str) -> bytes:
    """The bytes of a ``contentFile`` (base64, maybe wrapped over lines); 0156 when it is not base64."""
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise SoapFault("0156", f"{message('0156')} - Detalle: contentFile no es base64") from None


# ------------------------------------------------------------------------------------------------------
# The operations (run on worker threads)


def send_bill(path: ServicePath, taxpayer: Taxpayer, fields: dict[str, str]) -> Reply:
    """``sendBill``: the CDR, or a fault (exceptions; rejections unless the taxpayer is an OSE's)."""
    simulator = taxpayer.simulator
    name, content = fields.get("fileName", ""), _content(fields.get("contentFile", ""))
    send = simulator.send_other_bill if path.service is Service.OTHER else simulator.send_bill
    answer = send(name, content)
    kind = answer.kind
    if kind is ResponseKind.EXCEPTION or answer.cdr_zip is None:
        raise SoapFault(answer.code, answer.description)
    if kind is ResponseKind.REJECTED and not taxpayer.ose:
        raise SoapFault(answer.code, answer.description)
    return Reply(
        "sendBillResponse", {"applicationResponse": sunat_zip(answer.cdr_zip)}, cdr="applicationResponse"
    )


def exception_cdr_reply(fields: dict[str, str], code: str) -> Reply:
    """``sendBill`` answered with a bare exception CDR of ``code`` (an injected ``exception-cdr``)."""
    name = base_name(fields.get("fileName", ""))
    reference = name.split("-", 2)[2] if name.count("-") >= 3 else name
    xml = build_exception_cdr(reference, code, message(code))
    cdr_zip = sunat_zip(zip_cdr(name, xml))
    return Reply("sendBillResponse", {"applicationResponse": cdr_zip}, cdr="applicationResponse")


def exception_status_reply(filename: str, code: str) -> Reply:
    """``getStatus(ticket)`` answered statusCode 0 with a bare exception CDR of ``code`` about the
    ticket's file, in place of its own CDR (an injected ``exception-cdr``; the ticket stays unanswered)."""
    name = base_name(filename)
    reference = name.split("-", 1)[1] if "-" in name else name
    xml = build_exception_cdr(reference, code, message(code))
    fields: dict[str, str | bytes] = {"content": sunat_zip(zip_cdr(name, xml)), "statusCode": "0"}
    return Reply("getStatusResponse", fields, wrapper="status", cdr="content")


def _own_ticket(taxpayer: Taxpayer, ticket: str) -> TicketRecord | None:
    """The taxpayer's ticket ``ticket``, or None (unknown, or another taxpayer's)."""
    record = taxpayer.simulator.tickets.get(ticket) if ticket else None
    return record if record is not None and record.issuer_ruc == taxpayer.ruc else None


def send_summary(path: ServicePath, taxpayer: Taxpayer, fields: dict[str, str]) -> Reply:
    """``sendSummary``: the ticket of a daily summary or voided communication (a reversion on the
    other-CPE path), or a fault."""
    simulator = taxpayer.simulator
    name, content = fields.get("fileName", ""), _content(fields.get("contentFile", ""))
    send = simulator.send_other_summary if path.service is Service.OTHER else simulator.send_summary
    try:
        ticket = send(name, content)
    except AuthorityError as exc:
        raise SoapFault(exc.code, exc.description) from None
    return Reply("sendSummaryResponse", {"ticket": ticket})


def get_ticket_status(_path: ServicePath, taxpayer: Taxpayer, fields: dict[str, str]) -> Reply:
    """``getStatus(ticket)``: ``0098`` in process, ``0`` or ``99`` with the CDR; faults 0127, 0126..."""
    try:
        status = taxpayer.simulator.get_status(fields.get("ticket", ""))
    except AuthorityError as exc:
        raise SoapFault(exc.code, exc.description) from None
    if status.in_process:
        return Reply("getStatusResponse", {"statusCode": "0098"}, wrapper="status")
    cdr_zip = status.response.cdr_zip if status.response is not None else None
    fields_out: dict[str, str | bytes] = {}
    if cdr_zip is not None:
        fields_out["content"] = sunat_zip(cdr_zip)
    fields_out["statusCode"] = status.status_code
    return Reply("getStatusResponse", fields_out, wrapper="status", cdr="content")


_CONSULT_TYPES = ("01", "07", "08")
_RECORD_STATUS = {"accepted": "0001", "rejected": "0002", "voided": "0003"}


def consult(taxpayer: Taxpayer, fields: dict[str, str], *, cdr: bool) -> Reply:
    """billConsultService ``getStatus`` (``cdr`` False) and ``getStatusCdr`` of one document."""
    element, wrapper = ("getStatusCdrResponse", "statusCdr") if cdr else ("getStatusResponse", "status")
    return _consulted(taxpayer, fields, element, wrapper, cdr=cdr, jax_ws=True)


def get_status_ar(_path: ServicePath, taxpayer: Taxpayer, fields: dict[str, str]) -> Reply:
    """billService ``getStatusAR`` (the 2026 WSDL): a document's CDR, answered like ``getStatusCdr`` in
    ``getStatusResponseAR`` / ``status``."""
    return _consulted(taxpayer, fields, "getStatusResponseAR", "status", cdr=True, jax_ws=False)


def _consulted(
    taxpayer: Taxpayer, fields: dict[str, str], element: str, wrapper: str, *, cdr: bool, jax_ws: bool
) -> Reply:
    """A consultation of one document: ``statusCode``, ``statusMessage`` and the CDR when asked for."""
    if taxpayer.simulator.outage:
        raise SoapFault("0109")
    code, content = _consult_code(taxpayer, fields, cdr=cdr)
    reply: dict[str, str | bytes] = {}
    if content is not None:
        reply["content"] = sunat_zip(content)
    reply["statusCode"] = code
    reply["statusMessage"] = CDR_EXISTS if content is not None else CONSULT_STATUS.get(code) or message(code)
    return Reply(element, reply, wrapper=wrapper, cdr="content", jax_ws=jax_ws)


#: billService's operations (the same on the other-CPE path).
BILL_OPERATIONS: dict[str, Callable[[ServicePath, Taxpayer, dict[str, str]], Reply]] = {
    "sendBill": send_bill,
    "sendSummary": send_summary,
    "getStatus": get_ticket_status,
    "getStatusAR": get_status_ar,
}


def _consult_code(taxpayer: Taxpayer, fields: dict[str, str], *, cdr: bool) -> tuple[str, bytes | None]:
    """The status code of a consultation, and the CDR zip when ``cdr`` asks for it and there is one."""
    ruc = fields.get("rucComprobante", "")
    doc_type = fields.get("tipoComprobante", "")
    series = fields.get("serieComprobante", "").upper()
    number = fields.get("numeroComprobante", "")
    if not (len(ruc) == 11 and ruc.isdigit()):
        return "0004", None
    if len(doc_type) != 2:
        return "0005", None
    if len(series) != 4:
        return "0006", None
    if not number.isdigit() or int(number) <= 0:
        return "0007", None
    if not is_valid_ruc(ruc):
        return "0008", None
    if doc_type not in _CONSULT_TYPES:
        return "0009", None
    if not series.startswith("F"):
        return "0010", None
    if ruc != taxpayer.ruc:
        return "0012", None
    record = taxpayer.simulator.registry.lookup(RegistryKey(ruc, doc_type, series, int(number)))
    if record is None:
        return "0011", None
    if not cdr:
        return _RECORD_STATUS.get(record.status, "0001"), None
    if record.cdr_zip is None:
        return "0125", None
    return "0004", record.cdr_zip


# ------------------------------------------------------------------------------------------------------
# The ASGI application


async def _send(send: Send, status: int, body: bytes, content_type: bytes = XML_CONTENT_TYPE) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


#: The server's transport of the connection being served, kept by :class:`RemembersTransport` in front of
#: every middleware (a middleware that wraps ``send`` hides uvicorn's own ``send`` and so its transport).
CONNECTION_TRANSPORT: ContextVar[Any] = ContextVar("connection_transport", default=None)


def server_transport(send: Send) -> Any:
    """The transport behind uvicorn's own ``send`` (None for another server or a wrapped ``send``)."""
    return getattr(getattr(send, "__self__", None), "transport", None)


class RemembersTransport:
    """The outermost ASGI layer: keeps the connection's transport in :data:`CONNECTION_TRANSPORT` for the
    request, so the simulated SUNAT can cut the connection (``reset``) whatever wraps ``send`` inside."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = CONNECTION_TRANSPORT.set(server_transport(send))
        try:
            await self.app(scope, receive, send)
        finally:
            CONNECTION_TRANSPORT.reset(token)


async def _drop(send: Send) -> None:
    """Close the connection at once (uvicorn: its transport is aborted); under a server whose transport
    cannot be reached, the response is left unfinished, which closes it after the headers."""
    transport = CONNECTION_TRANSPORT.get() or server_transport(send)
    if transport is not None:
        transport.abort()
        await asyncio.sleep(0.05)  # the server learns the connection is gone before the app returns
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"1000")]})


async def _hold(receive: Receive, seconds: float) -> None:
    """Wait ``seconds``, or less if the client hangs up first."""
    with anyio.move_on_after(seconds):
        while (await receive())["type"] != "http.disconnect":
            pass


class SimulatorEndpoint:
    """The ASGI application (see module doc)."""

    def __init__(self, taxpayers: Taxpayers, faults: FaultStore, *, ose: bool = False, threads: int = 8):
        self.taxpayers = taxpayers
        self.faults = faults
        self.ose = ose
        self.limiter = anyio.CapacityLimiter(threads)
        self.paths = {path.path: path for path in PATHS}
        #: ``<folder>/<file>`` of each file a WSDL imports -> the file's name in the package.
        self.side_files = {
            f"{path.path.rsplit('/', 1)[0]}/{name}": name
            for path in PATHS
            for name in _WSDL_FILES[path.service][1]
        }

    async def run(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``function`` on a worker thread of this endpoint's own limiter."""
        return await anyio.to_thread.run_sync(
            functools.partial(function, *args, **kwargs), limiter=self.limiter
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        root_path = scope.get("root_path", "")
        path = scope["path"][len(root_path) :] if scope["path"].startswith(root_path) else scope["path"]
        try:
            await self.dispatch(scope, receive, send, path.rstrip("/") or "/")
        except Exception:  # a bug must still answer SUNAT's fault, never a bare 500
            logger.exception("SOAP endpoint failed on %s", path)
            await _send(send, 500, SoapFault("0100").envelope())

    async def dispatch(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        method = scope["method"]
        service_path = self.paths.get(path)
        if service_path is not None and method == "POST":
            await self.operation(service_path, scope, receive, send)
        elif service_path is not None and method in ("GET", "HEAD"):
            await self.description(service_path, scope, send)
        elif path in self.side_files and method in ("GET", "HEAD"):
            await _send(send, 200, (wsdl_dir() / self.side_files[path]).read_bytes())
        elif service_path is not None:
            headers = [(b"allow", b"GET, POST"), (b"content-length", b"0")]
            await send({"type": "http.response.start", "status": 405, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
        else:
            await _send(send, 404, b"Not Found", b"text/plain; charset=utf-8")

    async def description(self, service_path: ServicePath, scope: Scope, send: Send) -> None:
        """``?wsdl`` (its address rewritten to this URL), ``?<file>`` of an imported file, or a note."""
        query = scope.get("query_string", b"").decode("latin-1")
        wsdl, imported = _WSDL_FILES[service_path.service]
        stem = wsdl.removesuffix(".wsdl") + "."
        if query.lower() == "wsdl":
            address = str(URL(scope=scope).replace(query="")).encode()
            text = _ADDRESS.sub(lambda m: m.group(1) + address + m.group(2), (wsdl_dir() / wsdl).read_bytes())
            await _send(send, 200, text)
            return
        for name in imported:
            if query == name.removeprefix(stem):
                await _send(send, 200, (wsdl_dir() / name).read_bytes())
                return
        note = f"{service_path.service.value}: POST SOAP 1.1 here; GET ?wsdl for its description.\n"
        await _send(send, 200, note.encode(), b"text/plain; charset=utf-8")

    async def operation(self, service_path: ServicePath, scope: Scope, receive: Receive, send: Send) -> None:
        """Read, authenticate, apply an injected failure, answer (see module doc)."""
        try:
            body = await _read_body(scope, receive)
            if body is None:
                return  # the client left
            request = parse_request(body)
            handler = self.handler(service_path, request.operation)
            taxpayer = await self.sign_in(request.username, request.password, beta=service_path.beta)
            fault = await self.run(self.faults.take, taxpayer.ruc, request.operation)
        except SoapFault as refusal:
            await _send(send, refusal.status, refusal.envelope())
            return
        if fault is not None and fault.kind == "exception-cdr" and request.operation == "sendBill":
            logger.info("SOAP endpoint injects %s", fault.describe())
            await _send(send, 200, exception_cdr_reply(request.fields, fault.fault_code).envelope())
            return
        ticket_status = request.operation == "getStatus" and service_path.service is not Service.CONSULT
        if fault is not None and fault.kind == "exception-cdr" and ticket_status:
            ticket = await self.run(_own_ticket, taxpayer, request.fields.get("ticket", ""))
            if ticket is not None:
                logger.info("SOAP endpoint injects %s", fault.describe())
                await _send(send, 200, exception_status_reply(ticket.filename, fault.fault_code).envelope())
                return
        if fault is not None and not fault.processed:
            await self.strike_before(fault, send)
            return
        try:
            reply = await self.run(handler, taxpayer, request.fields)
        except SoapFault as refusal:
            if fault is not None:
                await self.strike_after(fault, refusal.status, refusal.envelope(), None, receive, send)
                return
            await _send(send, refusal.status, refusal.envelope())
            return
        if fault is not None:
            await self.strike_after(fault, 200, reply.envelope(), reply, receive, send)
            return
        await _send(send, 200, reply.envelope())

    def handler(
        self, service_path: ServicePath, operation: str
    ) -> Callable[[Taxpayer, dict[str, str]], Reply]:
        """The function answering ``operation`` on this path (a fault without a code when none does)."""
        if service_path.service is Service.CONSULT:
            if operation in ("getStatus", "getStatusCdr"):
                return functools.partial(consult, cdr=operation == "getStatusCdr")
        elif operation in BILL_OPERATIONS:
            return functools.partial(BILL_OPERATIONS[operation], service_path)
        elif operation == "sendPack":
            raise SoapFault(None, "El simulador no recibe lotes (sendPack)", faultcode="soap-env:Server")
        raise SoapFault(None, f"Cannot find dispatch method for {{{BILL_SERVICE_NS}}}{operation}")

    async def sign_in(self, username: str, password: str, *, beta: bool) -> Taxpayer:
        """The taxpayer of a UsernameToken (RUC + SOL user); 0102 when wrong, 0109 when the check fails."""
        ruc, user = username[:11], username[11:]
        if not (ruc.isdigit() and len(ruc) == 11 and user):
            raise SoapFault("0102")
        try:
            taxpayer = await self.run(self.taxpayers.sign_in, ruc, user, password, beta=beta)
        except Exception:  # the check itself failed (the database is down): SUNAT's authentication outage
            logger.exception("SOAP endpoint could not check the credentials of %s", ruc)
            raise SoapFault("0109") from None
        if taxpayer is None:
            raise SoapFault("0102")
        if self.ose and not taxpayer.ose:
            taxpayer = Taxpayer(taxpayer.ruc, taxpayer.simulator, ose=True)
        return taxpayer

    async def strike_before(self, fault: Fault, send: Send) -> None:
        """An injected failure that leaves the request unprocessed."""
        logger.info("SOAP endpoint injects %s", fault.describe())
        if fault.kind in ("fault", "exception-cdr"):  # an exception CDR where no CDR is answered: the fault
            await _send(send, 500, SoapFault(fault.fault_code).envelope())
        elif fault.kind == "503":
            await _send(send, 503, b"Service Unavailable", b"text/plain; charset=utf-8")
        else:  # reset
            await _drop(send)

    async def strike_after(
        self, fault: Fault, status: int, body: bytes, reply: Reply | None, receive: Receive, send: Send
    ) -> None:
        """An injected failure after the request was processed (``body`` is the answer it would get)."""
        logger.info("SOAP endpoint injects %s", fault.describe())
        if fault.kind == "reset-after":
            await _drop(send)
        elif fault.kind == "cut":
            headers = [(b"content-type", XML_CONTENT_TYPE), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body[: len(body) // 2], "more_body": True})
            await _drop(send)
        elif fault.kind == "timeout":
            await _hold(receive, fault.hold_seconds)
            await _send(send, status, body)
        elif fault.kind == "truncated-zip":
            await _send(send, status, reply.truncated().envelope() if reply is not None else body)
        elif fault.kind == "garbage":
            await _send(send, 200, GARBAGE)
        else:  # duplicate
            await _send(send, 500, SoapFault(fault.fault_code).envelope())


async def _read_body(scope: Scope, receive: Receive) -> bytes | None:
    """The request body; None when the client left; a 413 fault past :data:`MAX_BODY_BYTES` (refused on
    its ``Content-Length``, or as soon as the bytes received pass the limit)."""
    too_large = SoapFault(None, f"El mensaje supera el límite de {MAX_BODY_BYTES} bytes", status=413)
    declared = dict(scope["headers"]).get(b"content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    while True:
        message_: Message = await receive()
        if message_["type"] == "http.disconnect":
            return None
        chunk = message_.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large
        chunks.append(chunk)
        if not message_.get("more_body", False):
            return b"".join(chunks)


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        event = await receive()
        if event["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif event["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def create_soap_app(
    taxpayers: Taxpayers, faults: FaultStore, *, ose: bool = False, threads: int = 8
) -> SimulatorEndpoint:
    """The ASGI application answering SUNAT's SOAP services with the simulator (see module doc):
    ``taxpayers`` checks the credentials and gives each taxpayer its simulator, ``faults`` the injected
    failures; ``ose`` answers every taxpayer's rejections with a CDR; ``threads`` bounds its workers."""
    return SimulatorEndpoint(taxpayers, faults, ose=ose, threads=threads)
