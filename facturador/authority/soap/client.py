"""The gateway to SUNAT's SOAP services (or an OSE's, or the simulator's SOAP endpoint) over HTTP.

:class:`SoapGateway` implements what the service needs from the authority (``send_bill``,
``send_summary``, ``get_status``, the other-CPE ``send_other_bill`` / ``send_other_summary``, and
``get_status_cdr`` of billConsultService). Envelopes are written with the standard library and parsed
with lxml; every request validates against SUNAT's own XSD files shipped in ``wsdl/`` (the tests check
it). Answers are classified by SUNAT's code families, whatever shape they come in:

- ``0``: accepted (observations 4000+ kept); 2000-3999: rejected (the number is consumed), with its CDR:
  SUNAT answers a rejection with a fault, and its CDR is then asked for with ``getStatusCdr`` (kept when
  SUNAT gives it);
- 0100-1999: an exception, nothing processed: the document stays to be sent again, the same signed XML
  with the same number. A fault's code is read after the last dot of ``faultcode``
  (``soap-env:Client.0111``), or from ``faultstring`` when it is only digits (as some OSEs answer), and is
  zero-padded (``Server.200`` is 0200); an exception code inside a CDR counts as an exception too;
- an answer that may have been registered (a time-out after the request left, a connection cut while
  answering, an unreadable answer or CDR): SUNAT is asked with ``getStatusCdr`` before anything is sent
  again, and its CDR is taken when it belongs to this document; otherwise the document stays pending;
- 1033 ("registrado previamente") and 0402: the CDR is recovered the same way, and accepted only when it
  belongs to this document.

A request that never reached the server (a refused connection, a time-out while connecting, HTTP 401/502/
503/504 without a SOAP answer: a 401 page is a gateway's, reported on reused connections to SUNAT's beta,
never SUNAT's 0102 fault) is retried at once ``retries`` times with a short back-off. Answers without a
SUNAT code get codes of our own that say what happened: ``CONNECTION`` and ``HTTP-503`` (never reached
SUNAT), ``TIMEOUT``, ``CUT`` and ``BAD-ANSWER`` (may have reached it); they count as exceptions.
Passwords never appear in errors, logs or ``repr``.
"""

from __future__ import annotations

import base64
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

import requests
from lxml import etree
from requests.adapters import HTTPAdapter

from facturador.authority.cdr import CdrError, parse_cdr, read_cdr, safe_parser
from facturador.authority.gateway import (
    ALREADY_REGISTERED,
    AuthorityError,
    AuthorityResponse,
    ResponseKind,
    TicketStatus,
)
from facturador.authority.packaging import PackagingError, base_name, read_zip
from facturador.authority.soap.protocol import (
    BILL_SERVICE_NS,
    PASSWORD_TEXT,
    SOAP_ENV_NS,
    WSSE_NS,
    ServiceUrls,
)

__all__ = ["SoapEndpoint", "SoapGateway", "classify_fault", "envelope"]

log = logging.getLogger("facturador.sunat")

#: Our codes for answers that carry no SUNAT code (they count as exceptions: nothing processed or unknown).
TIMEOUT, CONNECTION, CUT, BAD_ANSWER = "TIMEOUT", "CONNECTION", "CUT", "BAD-ANSWER"
#: billConsultService's getStatusCdr answer when the CDR exists and comes in ``content``.
CDR_EXISTS = "0004"
#: HTTP statuses without a SOAP answer that mean the request never reached SUNAT's processing: a gateway's
#: 502/503/504, and a 401 page (not SUNAT's 0102 fault: reported on reused connections to beta).
_RETRY_STATUSES = frozenset({401, 502, 503, 504})
RETRY_PAUSE_SECONDS = 0.5
_BODY_LIMIT = 20 * 1024 * 1024  # a CDR zip is a few KB; a summary's ticket a few bytes


@dataclass(frozen=True)
class SoapEndpoint:
    """Where and as whom a tenant sends: the three service URLs, the WS-Security user name (RUC + SOL
    user) and password, the seconds to wait for an answer and the quick retries of a request that never
    reached the server."""

    urls: ServiceUrls
    username: str
    password: str = field(repr=False)
    timeout: float = 30.0
    retries: int = 2
    #: Whether ``urls.consult`` can be asked (SUNAT's beta has no billConsultService; an OSE may not).
    consult: bool = True
    #: Whether connections are kept alive and reused (``Connection: close`` on every request when not;
    #: see :func:`~facturador.authority.soap.protocol.keeps_connections`).
    keep_alive: bool = True


class _Maybe(Exception):
    """The request may have been processed, but no answer was read (time-out, cut, garbled)."""

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code = code
        self.detail = detail


class _NotSent(Exception):
    """The request did not reach SUNAT's processing (refused, connect time-out, 502/503/504)."""

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class _Fault:
    code: str
    description: str


def envelope(username: str, password: str, operation: str, children: dict[str, str]) -> bytes:
    """A SOAP 1.1 envelope with the WS-Security UsernameToken (#PasswordText) and ``operation`` of
    ``http://service.sunat.gob.pe`` holding ``children`` (unqualified, in order)."""
    body = "".join(f"<{name}>{escape(value)}</{name}>" for name, value in children.items())
    return (
        f'<soapenv:Envelope xmlns:soapenv="{SOAP_ENV_NS}" xmlns:ser="{BILL_SERVICE_NS}" '
        f'xmlns:wsse="{WSSE_NS}">'
        "<soapenv:Header><wsse:Security><wsse:UsernameToken>"
        f"<wsse:Username>{escape(username)}</wsse:Username>"
        f'<wsse:Password Type="{PASSWORD_TEXT}">{escape(password)}</wsse:Password>'
        "</wsse:UsernameToken></wsse:Security></soapenv:Header>"
        f"<soapenv:Body><ser:{operation}>{body}</ser:{operation}></soapenv:Body></soapenv:Envelope>"
    ).encode()


def classify_fault(faultcode: str, faultstring: str, detail: str = "") -> _Fault:
    """SUNAT's code and message of a fault: the digits after the last dot of ``faultcode``
    (``soap-env:Client.0111``), else ``faultstring`` when it is only a code (``2800``, as some OSEs answer),
    else a code at the start of ``detail``; zero-padded to four digits. An unknown code keeps
    ``faultcode`` itself (it counts as an exception)."""
    tail = faultcode.rsplit(".", 1)[-1].strip() if "." in faultcode else ""
    message = faultstring.strip()
    if tail.isdigit():
        return _Fault(tail.zfill(4), message or detail)
    if message.isdigit():
        return _Fault(message.zfill(4), detail or message)
    found = re.match(r"\s*(\d{3,4})\b", detail)
    if found:
        return _Fault(found.group(1).zfill(4), message or detail)
    return _Fault(faultcode.strip() or BAD_ANSWER, message or detail or "SOAP fault without a message")


def _local(tag: Any) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _child_text(node: etree._Element, name: str) -> str:
    for child in node:
        if _local(child.tag) == name:
            return "".join(child.itertext()).strip()
    return ""


def _child(node: etree._Element, name: str) -> etree._Element | None:
    for child in node:
        if _local(child.tag) == name:
            return child
    return None


class SoapGateway:
    """The authority of a tenant that sends over SOAP (see module doc). Thread-safe; one per request is
    fine (the HTTP connections are pooled per endpoint host by ``requests``)."""

    def __init__(self, endpoint: SoapEndpoint, *, session: requests.Session | None = None):
        self.endpoint = endpoint
        self.session = session or _shared_session()

    # -- billService ---------------------------------------------------------------------------

    def send_bill(self, filename: str, zip_bytes: bytes) -> AuthorityResponse:
        """``sendBill`` of one factura, boleta or note; SUNAT's answer (see module doc)."""
        return self._send_document(self.endpoint.urls.bill, filename, zip_bytes)

    def send_other_bill(self, filename: str, zip_bytes: bytes) -> AuthorityResponse:
        """The other-CPE ``sendBill`` of a retention or perception."""
        return self._send_document(self.endpoint.urls.other, filename, zip_bytes)

    def send_summary(self, filename: str, zip_bytes: bytes) -> str:
        """``sendSummary`` of a daily summary or voided communication: SUNAT's ticket; raises
        :class:`AuthorityError` when SUNAT does not take the file or cannot be reached."""
        return self._send_summary(self.endpoint.urls.bill, filename, zip_bytes)

    def send_other_summary(self, filename: str, zip_bytes: bytes) -> str:
        """The other-CPE ``sendSummary`` of a reversion (RR): SUNAT's ticket."""
        return self._send_summary(self.endpoint.urls.other, filename, zip_bytes)

    def get_status(self, ticket: str) -> TicketStatus:
        """``getStatus(ticket)``: 98 in process, or 0/99 with the CDR, whose own ``ResponseCode`` is the
        answer (as greenter reads it: statusCode 0 carrying an exception CDR is no acceptance). Raises
        :class:`AuthorityError` with SUNAT's code for an exception (a fault: 0127 unknown ticket, 0126
        another taxpayer's; an exception code in the CDR; another statusCode), an outage or an
        unreadable answer."""
        try:
            answer = self._call(self.endpoint.urls.bill, "getStatus", {"ticket": ticket})
        except (_Maybe, _NotSent) as exc:  # asking again is harmless: the caller may retry
            raise AuthorityError(exc.code, exc.detail) from None
        if isinstance(answer, _Fault):
            raise AuthorityError(answer.code, answer.description)
        status = _child(answer, "status")
        code = _child_text(status, "statusCode") if status is not None else ""
        if not code.isdigit():
            raise AuthorityError(BAD_ANSWER, f"getStatus answered no status code for ticket {ticket}")
        normalized = str(int(code))
        if normalized == "98":
            return TicketStatus("98")
        assert status is not None
        content = _child_text(status, "content")
        if normalized not in ("0", "99") and not content:  # SUNAT's code, with its message when it gives one
            message = _child_text(status, "statusMessage")
            raise AuthorityError(code.zfill(4), message or f"getStatus answered {code} for ticket {ticket}")
        try:
            response = read_cdr(base64.b64decode(content, validate=False))
        except (CdrError, ValueError) as exc:
            raise AuthorityError(BAD_ANSWER, f"unreadable CDR of ticket {ticket}: {exc}") from None
        if response.kind is ResponseKind.EXCEPTION:  # nothing processed: SUNAT's exception, never a state
            raise AuthorityError(response.code.zfill(4), response.description)
        return TicketStatus(normalized, response)

    # -- billConsultService --------------------------------------------------------------------

    def get_status_cdr(self, ruc: str, doc_type: str, series: str, number: int) -> AuthorityResponse | None:
        """The CDR SUNAT keeps of a document (``getStatusCdr``), or None when it has none or cannot be
        asked (no consultation service, SUNAT down, an unreadable answer)."""
        if not self.endpoint.consult or not self.endpoint.urls.consult:
            return None
        children = {
            "rucComprobante": ruc,
            "tipoComprobante": doc_type,
            "serieComprobante": series,
            "numeroComprobante": str(number),
        }
        try:
            answer = self._call(self.endpoint.urls.consult, "getStatusCdr", children)
        except (_Maybe, _NotSent) as exc:
            log.warning(
                "getStatusCdr %s-%s-%s-%s: %s %s", ruc, doc_type, series, number, exc.code, exc.detail
            )
            return None
        if isinstance(answer, _Fault):
            log.warning("getStatusCdr %s-%s-%s-%s: %s", ruc, doc_type, series, number, answer.code)
            return None
        status = _child(answer, "statusCdr")
        if status is None:
            return None
        content = _child_text(status, "content")
        if not content:
            return None
        try:
            return read_cdr(base64.b64decode(content, validate=False))
        except (CdrError, ValueError):
            return None

    # -- steps ---------------------------------------------------------------------------------

    def _send_document(self, url: str, filename: str, zip_bytes: bytes) -> AuthorityResponse:
        name = base_name(filename)
        try:
            answer = self._call(url, "sendBill", _file(name, zip_bytes))
        except _NotSent as exc:
            return AuthorityResponse.exception(exc.code, exc.detail)
        except _Maybe as exc:
            log.warning(
                "sendBill %s: no answer read (%s: %s); asking SUNAT for its CDR", name, exc.code, exc.detail
            )
            return self._recover(name, exc.code, f"{exc.detail} (puede haber sido recibido)")
        if isinstance(answer, _Fault):
            if answer.code in ALREADY_REGISTERED:
                return self._recover(name, answer.code, answer.description)
            rejection = AuthorityResponse(code=answer.code, description=answer.description)
            if rejection.kind is ResponseKind.REJECTED:  # SUNAT keeps a CDR of it: ask for it, to keep it
                found = self._cdr_of(name)
                if found is not None and found.code == answer.code:
                    return found
            return rejection
        content = _child_text(answer, "applicationResponse")
        try:
            response = read_cdr(base64.b64decode(content, validate=False))
        except (CdrError, ValueError) as exc:
            return self._recover(name, BAD_ANSWER, f"CDR ilegible: {exc}")
        if response.code.isdigit() and 0 < int(response.code) < 2000:  # an exception inside a CDR
            if response.code.zfill(4) in ALREADY_REGISTERED:
                return self._recover(name, response.code, response.description)
            return AuthorityResponse.exception(response.code, response.description)
        return response

    def _recover(self, name: str, code: str, description: str) -> AuthorityResponse:
        """SUNAT's CDR of document ``name`` when it has one that belongs to it; else the exception
        (``code``, ``description``): the document stays to be sent again."""
        found = self._cdr_of(name)
        if found is not None:
            log.info("recovered the CDR of %s from SUNAT (after %s)", name, code)
            return found
        return AuthorityResponse.exception(code, description)

    def _cdr_of(self, name: str) -> AuthorityResponse | None:
        """SUNAT's CDR of document ``name`` (``RUC-TT-SSSS-N``) when it has one that answers it."""
        ruc, doc_type, series, number = _parts(name)
        if number is None:
            return None
        found = self.get_status_cdr(ruc, doc_type, series, number)
        if found is None or not _belongs(found, ruc, f"{series}-{number}"):
            return None
        return found

    def _send_summary(self, url: str, filename: str, zip_bytes: bytes) -> str:
        name = base_name(filename)
        try:
            answer = self._call(url, "sendSummary", _file(name, zip_bytes))
        except (_Maybe, _NotSent) as exc:
            raise AuthorityError(exc.code, exc.detail) from None
        if isinstance(answer, _Fault):
            raise AuthorityError(answer.code, answer.description)
        ticket = _child_text(answer, "ticket")
        if not ticket:
            raise AuthorityError(BAD_ANSWER, f"sendSummary of {name} answered no ticket")
        return ticket

    def _call(self, url: str, operation: str, children: dict[str, str]) -> etree._Element | _Fault:
        """POST ``operation`` to ``url``; the response element, or the fault. Raises :class:`_NotSent`
        (after the quick retries) or :class:`_Maybe` (see module doc)."""
        endpoint = self.endpoint
        payload = envelope(endpoint.username, endpoint.password, operation, children)
        headers = {"Content-Type": "text/xml; charset=utf-8", "SOAPAction": f'"urn:{operation}"'}
        if not endpoint.keep_alive:
            headers["Connection"] = "close"
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._post_once(url, operation, payload, headers)
            except _NotSent as exc:
                if attempt > endpoint.retries:
                    raise
                log.info("%s to %s: %s; retrying", operation, url, exc.detail)
                time.sleep(RETRY_PAUSE_SECONDS * attempt)

    def _post_once(
        self, url: str, operation: str, payload: bytes, headers: dict[str, str]
    ) -> etree._Element | _Fault:
        timeout = self.endpoint.timeout
        try:
            response = self.session.post(
                url, data=payload, headers=headers, timeout=(min(timeout, 10.0), timeout), stream=True
            )
            body = _read_limited(response)
        except requests.ConnectTimeout:
            raise _NotSent(CONNECTION, f"no se pudo conectar con {_host(url)} (tiempo agotado)") from None
        except requests.ReadTimeout:
            raise _Maybe(TIMEOUT, f"{_host(url)} no respondió en {timeout:g} s") from None
        except requests.ConnectionError as exc:
            if _never_connected(exc):
                raise _NotSent(CONNECTION, f"no se pudo conectar con {_host(url)}") from None
            raise _Maybe(CUT, f"la conexión con {_host(url)} se cortó") from None
        except requests.RequestException as exc:  # chunked encoding, content decoding...
            raise _Maybe(CUT, f"respuesta cortada de {_host(url)} ({type(exc).__name__})") from None
        try:
            root: etree._Element | None = etree.fromstring(body, safe_parser())
        except etree.XMLSyntaxError:
            root = None
        if root is None or root.tag != f"{{{SOAP_ENV_NS}}}Envelope":  # a page, plain text, no body
            if response.status_code in _RETRY_STATUSES:
                raise _NotSent(f"HTTP-{response.status_code}", f"{_host(url)}: {response.reason}")
            raise _Maybe(BAD_ANSWER, f"{_host(url)} respondió HTTP {response.status_code} sin SOAP")
        soap_body = root.find(f"{{{SOAP_ENV_NS}}}Body")
        element = soap_body[0] if soap_body is not None and len(soap_body) else None
        if element is None:
            raise _Maybe(BAD_ANSWER, f"{_host(url)} respondió un sobre SOAP vacío")
        if _local(element.tag) == "Fault":
            detail = _child(element, "detail")
            return classify_fault(
                _child_text(element, "faultcode"),
                _child_text(element, "faultstring"),
                "".join(detail.itertext()).strip() if detail is not None else "",
            )
        if response.status_code != 200 or _local(element.tag) != f"{operation}Response":
            raise _Maybe(
                BAD_ANSWER, f"{_host(url)} respondió {_local(element.tag)} (HTTP {response.status_code})"
            )
        return element


def _file(name: str, zip_bytes: bytes) -> dict[str, str]:
    """The children of ``sendBill`` and ``sendSummary``: the zip's name and its bytes in base64."""
    return {"fileName": f"{name}.zip", "contentFile": base64.b64encode(zip_bytes).decode("ascii")}


def _read_limited(response: requests.Response) -> bytes:
    chunks = []
    size = 0
    for chunk in response.iter_content(65536):
        size += len(chunk)
        if size > _BODY_LIMIT:
            response.close()
            raise requests.exceptions.ContentDecodingError("the answer exceeds 20 MB")
        chunks.append(chunk)
    return b"".join(chunks)


def _never_connected(exc: requests.ConnectionError) -> bool:
    """Whether the connection failed before the request could be sent (refused, unknown host)."""
    text = repr(exc)
    return any(
        marker in text
        for marker in ("NewConnectionError", "NameResolutionError", "Connection refused", "Failed to resolve")
    )


def _host(url: str) -> str:
    return url.split("//", 1)[-1].split("/", 1)[0]


def _parts(name: str) -> tuple[str, str, str, int | None]:
    """RUC, type, series and number of ``RUC-TT-SSSS-N`` (None as number when it is not one)."""
    pieces = name.split("-")
    if len(pieces) == 4 and pieces[3].isdigit():
        return pieces[0], pieces[1], pieces[2], int(pieces[3])
    return name, "", "", None


def _belongs(response: AuthorityResponse, ruc: str, document: str) -> bool:
    """Whether a recovered CDR answers ``document`` (``F001-1``) of ``ruc``."""
    if response.cdr_zip is None:
        return False
    try:
        _name, xml = read_zip(response.cdr_zip)
        cdr = parse_cdr(xml)
    except (CdrError, PackagingError):
        return False
    reference = cdr.document_reference or cdr.reference_id
    return reference == document and cdr.receiver_ruc in ("", ruc)


_SESSION: requests.Session | None = None


def _shared_session() -> requests.Session:
    """One pooled session for every SOAP gateway of the process (connections are kept per host)."""
    global _SESSION
    if _SESSION is None:
        session = requests.Session()
        session.mount("https://", HTTPAdapter(pool_connections=16, pool_maxsize=32, max_retries=0))
        session.mount("http://", HTTPAdapter(pool_connections=16, pool_maxsize=32, max_retries=0))
        _SESSION = session
    return _SESSION
