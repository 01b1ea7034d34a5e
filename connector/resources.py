"""What every endpoint family of a :class:`~connector.Client` shares: :class:`Resource`, its one pipeline
for the calls that create something, its reading of lists and downloads, and :func:`offered`.

Every call that creates something — a document, a guide, a summary, a sale note, a person ... — runs
:meth:`Resource._submit`::

    facturador_prepare_payload (pipeline) -> facturador_validate_payload
        -> problems? ValidationError, nothing sent
        -> POST (never retried) -> the family's typed answer -> cached lists dropped -> facturador_issued

The families (one module each: :mod:`~connector.documents`, :mod:`~connector.tickets`,
:mod:`~connector.dispatches`, :mod:`~connector.withholding`, :mod:`~connector.persons`,
:mod:`~connector.items`, :mod:`~connector.inventory`, :mod:`~connector.sale_notes`,
:mod:`~connector.quotations`) say only what is theirs: the path, the payload, how to read the answer.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from connector.errors import (
    NotFoundError,
    NotOfferedError,
    ServerError,
    ValidationError,
    missing_route,
    not_offered,
)
from connector.forms import FormField
from connector.http import Connection
from connector.lists import RecordList
from connector.parsing import rows_of
from connector.plugins import PluginHost

__all__ = ["FilesResource", "Reply", "Resource", "offered"]

T = TypeVar("T")


@contextlib.contextmanager
def offered(what: str | None) -> Iterator[None]:
    """Turn the 404 of a route the tenant lacks into a :class:`~connector.errors.NotOfferedError`
    ("Esta empresa no ofrece ``what`` por su API."); a 404 of a record stays a ``NotFoundError``.
    ``None``: every tenant offers it (nothing is turned)."""
    try:
        yield
    except NotFoundError as exc:
        if what is None or isinstance(exc, NotOfferedError) or not missing_route(exc):
            raise
        raise not_offered(what, exc) from exc


@dataclass(frozen=True)
class Reply:
    """What the ``POST`` of a creating call answered: the payload ``sent`` (after the plugins), the JSON
    object of the answer (``body``) and its ``url``."""

    sent: dict[str, Any]
    body: dict[str, Any]
    url: str


#: How long, in all, a download waits for a file the service answers 202 (still making it).
FILE_WAIT_SECONDS = 60.0


def _retry_after(value: str | None) -> float:
    """The seconds of a ``Retry-After`` header (1 s when missing or not a number; 0.1 s to 10 s)."""
    try:
        seconds = float(value) if value is not None else 1.0
    except ValueError:
        seconds = 1.0
    return min(max(seconds, 0.1), 10.0)


class Resource:
    """Base of the resources: the family name, the tenant's connection and plugin host."""

    #: Endpoint family, as passed to the plugin hooks.
    family: ClassVar[str] = ""

    def __init__(self, http: Connection, plugins: PluginHost) -> None:
        self._http = http
        self._plugins = plugins

    @property
    def lists_tag(self) -> str:
        """The tag of this family's cached lists (``"items.lists"``): dropped when they change."""
        return f"{self.family}.lists"

    def form_fields(self, document_type: str | None = None) -> list[FormField]:
        """Extra form fields plugins contribute for this family (``facturador_form_fields``)."""
        return self._plugins.form_fields(self.family, document_type)

    def _submit(
        self,
        path: str,
        payload: Mapping[str, Any],
        read: Callable[[Reply], T],
        *,
        form_values: Mapping[str, Any] | None = None,
        what: str = "la solicitud",
        added: Mapping[str, Any] | None = None,
        check: str | Callable[[Mapping[str, Any]], str] | None = None,
        changes: Iterable[str] = (),
        offered_as: str | None = None,
    ) -> T:
        """Create something: the one pipeline of every family (see the module docstring).

        :param path: where to ``POST`` it.
        :param payload: the wire payload (never modified); ``form_values`` go to the plugins.
        :param read: the typed answer from the :class:`Reply` (it may raise: nothing is then dropped
            nor told to ``facturador_issued``).
        :param what: what was not sent, in the message of the plugins' problems (``"el comprobante"``).
        :param added: keys put in after the plugins ran, sent and handed to ``facturador_issued``
            (the idempotency key).
        :param check: how to see whether it exists after an HTTP 5xx (see :meth:`Connection.post`);
            a callable gets the final payload.
        :param changes: tags of the cached lists the new object changes.
        :param offered_as: what a tenant without the route does not offer (:func:`offered`).
        :raises ValidationError: the plugins found problems (nothing sent; ``status`` is ``None``), or
            the service refused the payload.
        """
        body = self._plugins.prepare_payload(self.family, dict(payload), dict(form_values or {}))
        problems = self._plugins.validate_payload(self.family, body)
        if problems:
            more = f" (y {len(problems) - 1} problema(s) más)" if len(problems) > 1 else ""
            raise ValidationError(
                f"No se envió {what}: {problems[0].message}{more}",
                error_code="PLUGIN_VALIDATION",
                field_errors=problems,
                body=None,
            )
        if added:
            body = {**body, **added}
        with offered(offered_as):
            response = self._http.post(path, body, check=check(body) if callable(check) else check)
            result = read(Reply(body, Connection.json(response), response.url))
        for tag in changes:
            self._http.invalidate(tag)
        self._plugins.issued(self.family, body, result)
        return result

    def _list(
        self,
        path: str,
        record: Callable[[dict[str, Any]], T],
        *,
        fresh: bool = False,
        expire_after: float | None = None,
        tagged: bool = True,
        offered_as: str | None = None,
        columns: Sequence[str] | None = None,
    ) -> RecordList[T]:
        """The typed records of a list answer (``{"data": [...]}`` or a bare array), cached under
        :attr:`lists_tag` unless not ``tagged``."""
        with offered(offered_as):
            response = self._http.get(
                path, fresh=fresh, expire_after=expire_after, tag=self.lists_tag if tagged else None
            )
            body = Connection.parse(response)
        rows = rows_of(body, response.url, response.status_code)
        return RecordList((record(row) for row in rows), columns=columns)

    def _download(self, path: str, *, expire_after: float | None = None, retry: bool = True) -> bytes:
        """The bytes of a file (:meth:`Connection.content`: a file not there yet is a ``NotFoundError``).

        A file the service is still making (a big document's PDF) is answered 202 with ``Retry-After``:
        it is asked again after that wait, for :data:`FILE_WAIT_SECONDS` in all, then a
        :class:`~connector.errors.ServerError` says it is still being made (202s are never cached)."""
        deadline = time.monotonic() + FILE_WAIT_SECONDS
        while True:
            response = self._http.get(path, expire_after=expire_after, retry=retry)
            if response.status_code != 202:
                return Connection.content(response)
            left = deadline - time.monotonic()
            if left <= 0:
                raise ServerError(
                    f"El servicio aún está generando el archivo tras {FILE_WAIT_SECONDS:.0f} s; "
                    "pídalo de nuevo más tarde.",
                    status=202,
                    url=response.url,
                )
            time.sleep(min(_retry_after(response.headers.get("Retry-After")), left))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} family={self.family!r} base_url={self._http.base_url!r}>"


class FilesResource(Resource):
    """A family whose files are at ``/downloads/{files}/{xml|pdf|cdr}/{external_id}`` (guides,
    retentions, perceptions)."""

    #: The folder of its files under ``/downloads/``.
    files: ClassVar[str] = ""

    def download_xml(self, external_id: str) -> bytes:
        """The signed XML."""
        return self._download(f"/downloads/{self.files}/xml/{external_id}")

    def download_pdf(self, external_id: str) -> bytes:
        """The PDF."""
        return self._download(f"/downloads/{self.files}/pdf/{external_id}")

    def download_cdr(self, external_id: str) -> bytes:
        """The CDR zip of SUNAT's answer (:class:`~connector.errors.NotFoundError` until SUNAT answered)."""
        return self._download(f"/downloads/{self.files}/cdr/{external_id}")
