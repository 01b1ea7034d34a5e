"""``client.documents``: facturas, boletas, credit and debit notes (``POST /api/documents``, ``/send``,
``/updatedocumentstatus``, ``GET /api/documents/lists``; the bodies: ``docs/scenarios.md``)."""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urlencode

from connector.builders import Builder
from connector.errors import NotFoundError
from connector.http import Connection
from connector.models import (
    DocumentList,
    DocumentRecord,
    EmailDelivery,
    IssueResult,
    SendResult,
    StateChange,
    link_notes,
)
from connector.parsing import coerce_date, gc_paused, rows_of
from connector.plugins import PluginHost
from connector.resources import Resource
from sunat.calendar import peru_today

__all__ = ["ChangesPage", "DocumentsResource", "new_idempotency_key"]


def new_idempotency_key() -> str:
    """A fresh key for :meth:`DocumentsResource.issue` (a random UUID: one per document to issue)."""
    return str(uuid.uuid4())


#: The PDF formats a tenant may offer (``download_pdf``'s ``fmt``).
PDF_FORMATS = ("a4", "ticket", "ticket_58", "ticket_80", "a5")


def _how_to_find(body: Mapping[str, Any]) -> str:
    """How to look for a document whose issuing answered HTTP 5xx (see ``OutcomeUnknownError``)."""
    series = str(body.get("serie_documento") or "").strip() or "SERIE"
    number = str(body.get("numero_documento") or "#").strip()
    if number != "#":
        return f"Búsquelo con client.documents.find('{series}', {number}) antes de emitirlo otra vez."
    return (
        f"Búsquelo entre los últimos de la serie {series} (client.documents.latest(fresh=True)) antes de "
        "emitirlo otra vez."
    )


@dataclass(frozen=True)
class ChangesPage:
    """One answer of :meth:`DocumentsResource.changes`: its raw rows and, when the tenant offers this
    service's list extension, ``as_of`` (the service's time when it read: ask the next refresh for changes
    since then) and ``next`` (the ``after`` of the next page; ``None`` on the last). A tenant without the
    extension answers the whole range: ``extended`` is False, ``as_of`` and ``next`` are ``None``."""

    rows: list[dict[str, Any]]
    extended: bool
    as_of: dt.datetime | None = None
    next: str | None = None


class DocumentsResource(Resource):
    """Issue, send, update, list, download and find sales documents.

    Issuing runs the family's plugin pipeline (``facturador_prepare_payload`` →
    ``facturador_validate_payload`` → ``POST /api/documents`` → ``facturador_issued``; see
    :meth:`Resource._submit <connector.resources.Resource._submit>`) and is **never retried**: after a
    :class:`~connector.errors.TransportError` the document may exist; look it up with
    :meth:`find` before issuing again, or issue with an ``idempotency_key`` and repeat the call.
    Lists and downloads are cached (see :class:`~connector.http.CacheSettings`); a successful
    issue, send or status update drops this client's cached lists.
    """

    family: ClassVar[str] = "documents"

    def __init__(self, http: Connection, plugins: PluginHost) -> None:
        super().__init__(http, plugins)
        self._parsed: dict[str, tuple[Any, DocumentList]] = {}

    def forget_parsed(self) -> None:
        """Drop the lists kept parsed (see :meth:`list`); the next list parses its answer again."""
        self._parsed.clear()

    # -- writing ----------------------------------------------------------------------------------

    def issue(
        self,
        payload: Mapping[str, Any] | Builder,
        *,
        form_values: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> IssueResult:
        """Issue a document from a builder (:mod:`connector.builders`) or a raw Spanish payload.

        :param payload: an :class:`~connector.builders.Invoice`, ``Receipt``, ``CreditNote``,
            ``DebitNote``, or a dict with the wire keys (never modified).
        :param form_values: values of the plugins' form fields (``detraction.code``, ``instalments.rows``
            ...), handed to ``facturador_prepare_payload``.
        :param idempotency_key: the sale's key, sent as ``offline_id``: issuing again with the same key
            and payload (after a :class:`~connector.errors.TransportError`) answers with the document the
            first call made (``result.was_duplicate``) instead of a second one; another payload with the
            key is a :class:`~connector.errors.ConflictError`. Tenants without idempotency ignore it.
        :raises ValidationError: plugins found problems (nothing sent; ``status is None``) or the service
            refused the payload (``field_errors`` name the fields).
        :raises ConflictError: the concrete number is already registered.
        :raises TransportError: no answer; the document may have been issued (see :meth:`find`).
        :raises OutcomeUnknownError: HTTP 5xx: real tenants answer their refusals so (``message`` has
            their words), but it may exist; the message says how to look for it. A request refused by the
            tenant's rate limit is not one of these: it is sent again, unchanged, after the wait.
        """
        return self._submit(
            "/api/documents",
            payload.to_payload() if isinstance(payload, Builder) else copy.deepcopy(dict(payload)),
            lambda reply: IssueResult.from_body(reply.body, reply.url),
            form_values=form_values,
            what="el comprobante",
            added={"offline_id": idempotency_key} if idempotency_key is not None else None,
            check=_how_to_find,
            changes=(self.lists_tag,),
        )

    def send(self, external_id: str) -> SendResult:
        """Send to the authority a factura (or its note) issued with ``send=False`` (``POST
        /api/documents/send``). Not retried automatically."""
        response = self._http.post("/api/documents/send", {"external_id": external_id})
        result = SendResult.from_body(Connection.json(response), response.url)
        self._http.invalidate(self.lists_tag)
        return result

    def update_status(self, external_id: str, state_type_id: str, reason: str | None = None) -> None:
        """Set a document's state (``POST /api/documents/updatedocumentstatus``). Sends the key the real
        services read, ``externail_id`` (sic); ``reason`` goes as ``motivo``, kept by this service in the
        document's audit record (:meth:`state_changes`; real tenants ignore it)."""
        body = {"externail_id": external_id, "state_type_id": state_type_id}
        if reason is not None:
            body["motivo"] = reason
        response = self._http.post("/api/documents/updatedocumentstatus", body)
        Connection.json(response)
        self._http.invalidate(self.lists_tag)

    def state_changes(self, external_id: str) -> list[StateChange] | None:
        """The states set by hand of a document, oldest first (``GET
        /api/documents/state-changes/{external_id}``); ``None`` from a tenant that keeps no such record
        (real tenants answer 404)."""
        try:
            body = Connection.json(self._http.get(f"/api/documents/state-changes/{external_id}", keep=False))
        except NotFoundError:
            return None
        return [StateChange.from_wire(item) for item in body.get("data") or [] if isinstance(item, Mapping)]

    def email(self, document_id: int, email: str | None = None) -> EmailDelivery:
        """E-mail a document's PDF, XML and CDR to ``email`` (addresses separated by commas; None: the
        customer's) through the tenant's SMTP server (``POST /api/document/email``, real PRO's body
        ``{"id", "email"}``). This service queues it (state ``queued``; follow it with
        :meth:`email_deliveries`); real tenants send it at once. Not retried by the client."""
        body: dict[str, Any] = {"id": document_id}
        if email is not None:
            body["email"] = email
        answer = Connection.json(self._http.post("/api/document/email", body))
        data = answer.get("data")
        if isinstance(data, Mapping):
            return EmailDelivery.from_wire(data, email or "")
        return EmailDelivery(id=None, email=email or "", state="sent")

    def email_deliveries(self, external_id: str) -> list[EmailDelivery] | None:
        """A document's e-mail deliveries, oldest first (``GET /api/documents/email-deliveries/{id}``);
        ``None`` from a tenant that keeps no such record (real tenants answer 404)."""
        try:
            path = f"/api/documents/email-deliveries/{external_id}"
            body = Connection.json(self._http.get(path, keep=False))
        except NotFoundError:
            return None
        return [EmailDelivery.from_wire(item) for item in body.get("data") or [] if isinstance(item, Mapping)]

    # -- reading ----------------------------------------------------------------------------------

    def _rows(self, path: str, *, expire_after: float | None, fresh: bool) -> DocumentList:
        response = self._http.get(path, expire_after=expire_after, fresh=fresh, tag=self.lists_tag)
        # The same answer (byte for byte: typically a cache hit) returns the list parsed the first time,
        # with its DataFrame, instead of parsing 20,000 rows again; hashing the bytes costs ~30 ms.
        stamp = hashlib.blake2b(response.content, digest_size=16).digest()
        from_cache = bool(getattr(response, "from_cache", False))
        memo = self._parsed.get(path)
        if memo is not None and memo[0] == stamp:
            return memo[1].cached_copy() if from_cache else memo[1]
        with gc_paused():  # 20,000 rows make ~1.5 million objects, none of them in a cycle
            body = Connection.parse(response)
        rows = rows_of(body, response.url, response.status_code)
        if rows:
            first = str(rows[0].get("date_of_issue") or "")
            self._http.profile.list_dates = "d-m-Y" if first[2:3] == "-" else "Y-m-d"
        link_notes(rows)
        documents = DocumentList(rows, from_cache=from_cache, url=response.url)
        self._parsed[path] = (stamp, documents)  # one entry per path: the latest answer, parsed
        return documents

    def latest(self, *, fresh: bool = False) -> DocumentList:
        """The latest documents (``GET /api/documents/lists``: 50 on real tenants). ``fresh=True``
        bypasses the cache (and refreshes it)."""
        return self._rows("/api/documents/lists", expire_after=None, fresh=fresh)

    def download_xml(self, external_id: str) -> bytes:
        """The signed XML (cached for ``CacheSettings.xml_expire_after``: it never changes)."""
        return self._download(f"/downloads/document/xml/{external_id}", expire_after=self._http.xml_expiry)

    def download_pdf(self, external_id: str, fmt: str = "a4") -> bytes:
        """The PDF in ``fmt`` (``a4``, ``ticket``; what the tenant offers: :data:`PDF_FORMATS`)."""
        if fmt not in PDF_FORMATS:
            raise ValueError(f"fmt must be one of {PDF_FORMATS} (got {fmt!r})")
        return self._download(f"/downloads/document/pdf/{external_id}" + ("" if fmt == "a4" else f"/{fmt}"))

    def download_cdr(self, external_id: str) -> bytes:
        """The CDR zip of the authority's answer (:class:`NotFoundError` while there is none)."""
        return self._download(f"/downloads/document/cdr/{external_id}")

    def find(
        self, series: str, number: int, *, around: dt.date | None = None, days: int = 7
    ) -> DocumentRecord | None:
        """The document ``series-number`` issued within ``days`` of ``around`` (default today in Lima),
        or ``None``. Always asks the service (no cache): use it to reconcile after a timeout."""
        center = around or peru_today()
        wanted = f"{series.strip().upper()}-{int(number)}"
        rows = self.list(center - dt.timedelta(days=days), center + dt.timedelta(days=days), fresh=True)
        for index, row in enumerate(rows.rows):
            number_text = str(row.get("number") or "")
            if number_text == wanted or number_text.upper() == wanted:
                return rows[index]
            head, _, tail = number_text.rpartition("-")
            if head.upper() == wanted.split("-")[0] and tail.lstrip("0") == str(int(number)):
                return rows[index]
        return None

    def list(
        self, start: dt.date | str, end: dt.date | str, *, fresh: bool = False, details: bool = False
    ) -> DocumentList:
        """Documents issued from ``start`` to ``end`` inclusive (``GET /api/documents/lists/{start}/{end}``,
        all of them, unpaginated). Ranges ending before today are cached longer
        (``CacheSettings.closed_range_expire_after``); ``fresh=True`` bypasses the cache.

        ``details=True`` asks also for each document's lines (``items``), payment condition and
        instalments (``fee``): this service's ``?details=1``. Real tenants ignore it and send the plain
        rows: :attr:`DocumentList.has_details` then says they did not come."""
        first, last = coerce_date(start, "start"), coerce_date(end, "end")
        path = f"/api/documents/lists/{first.isoformat()}/{last.isoformat()}" + (
            "?details=1" if details else ""
        )
        return self._rows(path, expire_after=self._http.range_expiry(last), fresh=fresh)

    def changes(
        self,
        start: dt.date | str,
        end: dt.date | str,
        *,
        since: dt.datetime | None = None,
        after: str | None = None,
        limit: int | None = None,
        details: bool = False,
    ) -> ChangesPage:
        """A page of the documents issued from ``start`` to ``end`` changed at or after ``since`` (this
        service's list extension: ``?changed_since=&limit=&after=``), always asked to the service (no
        cache). A tenant without the extension ignores those parameters and answers every document of the
        range, as :meth:`list` does: the page says so (``extended`` False). For a local copy kept up to
        date, see :class:`connector.store.LocalStore`."""
        first, last = coerce_date(start, "start"), coerce_date(end, "end")
        query: dict[str, str] = {}
        if details:
            query["details"] = "1"
        if since is not None:
            moment = since if since.tzinfo is not None else since.replace(tzinfo=dt.UTC)
            query["changed_since"] = moment.astimezone(dt.UTC).isoformat()
        if limit is not None:
            query["limit"] = str(int(limit))
        if after is not None:
            query["after"] = str(after)
        path = f"/api/documents/lists/{first.isoformat()}/{last.isoformat()}"
        if query:
            path += "?" + urlencode(query)
        response = self._http.get(path, keep=False)
        with gc_paused():
            body = Connection.parse(response)
        rows = rows_of(body, response.url, response.status_code)
        if rows:
            text = str(rows[0].get("date_of_issue") or "")
            self._http.profile.list_dates = "d-m-Y" if text[2:3] == "-" else "Y-m-d"
        meta = body.get("changes") if isinstance(body, Mapping) else None
        if not isinstance(meta, Mapping) or not meta.get("as_of"):
            return ChangesPage(rows, extended=False)
        as_of = dt.datetime.fromisoformat(str(meta["as_of"]).replace("Z", "+00:00"))
        following = meta.get("next")
        return ChangesPage(rows, True, as_of, str(following) if following not in (None, "") else None)
