"""The :class:`Client`: one per tenant (base URL + token), with a resource per endpoint family."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from requests.adapters import BaseAdapter

from connector.company import CompanyResource
from connector.dispatches import DispatchesResource
from connector.documents import DocumentsResource
from connector.errors import (
    AuthenticationError,
    FacturadorError,
    NotFoundError,
    TransportError,
)
from connector.http import CacheSettings, Connection, Progress, TenantProfile
from connector.inventory import InventoryResource
from connector.items import ItemsResource
from connector.models import ConnectionStatus
from connector.persons import PersonsResource
from connector.plugins import PluginHost, make_plugin_manager
from connector.quotations import QuotationsResource
from connector.sale_notes import SaleNotesResource
from connector.tickets import SummariesResource, VoidedResource
from connector.withholding import PerceptionsResource, RetentionsResource

__all__ = ["Client"]

#: Longest wait of :meth:`Client.ping` (the sidebar must not hang on a dead host).
PING_TIMEOUT = 10.0


class Client:
    """A client of one Facturador PRO tenant (this project's service or a real one).

    :param base_url: the tenant's base URL: ``https://empresa.example.pe`` for real tenants,
        ``http://127.0.0.1:8000/t/demo`` for this service's path prefix.
    :param token: the API token (``Authorization: Bearer``); never logged, never in errors or reprs.
    :param timeout: seconds for every request (connect and read). Issuing waits for SUNAT inside the
        request on real tenants: keep it generous.
    :param cache: ``False`` (default: nothing cached, no file written), ``True`` (the default
        :class:`~connector.http.CacheSettings`: SQLite in the user cache dir) or a ``CacheSettings``.
    :param transport: a ``requests`` transport adapter every request goes through instead of the
        connector's own (with its read retries): a :class:`~connector.transports.MockTransport`,
        a :class:`~connector.transports.RecordingTransport`, or your own (retries, proxies).
    :param plugins: extra plugins for this client only (modules, objects or import paths).
    :param load_entrypoints: also load installed plugins of the ``facturador`` entry-point group.
    :param plugins_dir: a folder of tenant-local plugin files (``*.py``).
    :param name: a display name (the company), used in :meth:`ping` messages and the repr.
    :param rate_window: seconds of the tenant's rate-limit window (real tenants: 60 requests a minute);
        the budget itself is read from their answers (see :class:`~connector.http.RateLimit`).
    :param progress: called with a Spanish sentence during long waits and walks (the rate limit's
        waits, pages of a list), from whichever thread waits (the local store's sync asks for pages in
        a worker thread); settable later as :attr:`progress`.

    Resources, one per endpoint family, each with its plugin hooks and form fields: ``documents``;
    ``summaries`` (daily summaries: declare and void boletas) and ``voided`` (voided communications of
    facturas), which answer tickets; ``dispatches`` (guides 09 and 31); ``retentions`` and
    ``perceptions`` (with their reversions); ``sale_notes``, ``quotations``, ``persons``, ``items``,
    ``inventory`` (the back office); and ``company`` (this service's certificate status). Real tenants
    lack some endpoints: those calls raise :class:`~connector.errors.NotOfferedError`
    (``docs/real_tenants.md``).
    Use it as a context manager, or call :meth:`close`, to release connections and the cache file.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 30.0,
        cache: bool | CacheSettings = False,
        plugins: Sequence[object] = (),
        load_entrypoints: bool = False,
        plugins_dir: str | Path | None = None,
        name: str | None = None,
        rate_window: float = 60.0,
        progress: Progress | None = None,
        transport: BaseAdapter | None = None,
    ) -> None:
        if cache is True:
            settings: CacheSettings | None = CacheSettings()
        elif cache is False or cache is None:
            settings = None
        elif isinstance(cache, CacheSettings):
            settings = cache
        else:
            raise TypeError("cache must be True, False or a CacheSettings")
        self.name = name
        self._http = Connection(
            base_url, token, timeout=timeout, cache=settings, rate_window=rate_window, transport=transport
        )
        self._http.progress = progress
        self._plugins = make_plugin_manager(
            plugins, load_entrypoints=load_entrypoints, plugins_dir=plugins_dir
        )
        http, host = self._http, self._plugins
        self.documents = DocumentsResource(http, host)
        self.summaries = SummariesResource(http, host)
        self.voided = VoidedResource(http, host)
        self.dispatches = DispatchesResource(http, host)
        self.sale_notes = SaleNotesResource(http, host)
        self.quotations = QuotationsResource(http, host)
        self.persons = PersonsResource(http, host)
        self.items = ItemsResource(http, host)
        self.inventory = InventoryResource(http, host)
        self.retentions = RetentionsResource(http, host)
        self.perceptions = PerceptionsResource(http, host)
        self.company = CompanyResource(http, host)

    @property
    def base_url(self) -> str:
        """The tenant's base URL (without a trailing slash)."""
        return self._http.base_url

    @property
    def timeout(self) -> float:
        """Seconds allowed for each request."""
        return self._http.timeout

    @property
    def progress(self) -> Progress | None:
        """Who hears of long waits and walks (a callable taking a Spanish sentence), or ``None``."""
        return self._http.progress

    @progress.setter
    def progress(self, value: Progress | None) -> None:
        self._http.progress = value

    @property
    def profile(self) -> TenantProfile:
        """What the answers told of the tenant: a real Facturador PRO or this service, its date styles."""
        return self._http.profile

    @property
    def plugin_manager(self) -> PluginHost:
        """This client's plugins (typed facade over its own pluggy ``PluginManager``, at ``.pm``)."""
        return self._plugins

    @property
    def cache_settings(self) -> CacheSettings | None:
        """How reads are cached (``None``: not cached)."""
        return self._http.cache_settings

    def clear_cache(self) -> None:
        """Forget every cached read of this tenant and token (and the lists already parsed from them)."""
        self._http.clear_cache()
        self.documents.forget_parsed()

    def ping(self) -> ConnectionStatus:
        """Check the service and the token with one uncached, unretried authenticated read.

        Never raises: the answer says ``ok`` and, for people, what is wrong (service down, wrong token,
        wrong URL)."""
        who = self.name or self.base_url
        try:
            response = self._http.get(
                "/api/documents/lists", retry=False, timeout=min(self.timeout, PING_TIMEOUT)
            )
            Connection.json(response)
        except TransportError as exc:
            return ConnectionStatus(
                False, f"El servicio no responde en {self.base_url}: {exc.message}", "unreachable"
            )
        except AuthenticationError as exc:
            return ConnectionStatus(
                False,
                f"El token no es válido para {who} (HTTP {exc.status}): revise el token del tenant.",
                "unauthorized",
                exc.status,
            )
        except NotFoundError as exc:
            return ConnectionStatus(
                False,
                f"No se encontró la empresa en {self.base_url} (HTTP 404): revise la URL base.",
                "not_found",
                exc.status,
            )
        except FacturadorError as exc:
            return ConnectionStatus(False, f"El servicio respondió con error: {exc}", "error", exc.status)
        ending = "" if who.endswith(".") else "."  # "EMPRESA DEMO S.A.C." has its own period
        return ConnectionStatus(True, f"Conectado a {who}{ending}", "ok", response.status_code)

    def close(self) -> None:
        """Release the HTTP connections and the cache."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        label = f"name={self.name!r}, " if self.name else ""
        return f"Client({label}base_url={self.base_url!r})"
