"""The connector: a Python client of Facturador PRO tenants (this project's service and real ones).

::

    from facturador.connector import Client
    from facturador.connector.builders import Customer, Invoice, Line

    with Client("http://127.0.0.1:8000/t/demo", token, name="Demo") as client:
        result = client.documents.issue(
            Invoice(customer=Customer.ruc("20601030013", "EMPRESA XYZ S.A.C."),
                    lines=[Line("Inca Kola 250 ml", 2, unit_price=59)])
        )
        frame = client.documents.list("2026-11-01", "2026-11-30").to_dataframe()

Modules: :mod:`~facturador.connector.client` (``Client``), :mod:`~facturador.connector.documents`
(``client.documents``), :mod:`~facturador.connector.resources` (the other families: ``client.summaries``
and ``client.voided`` answer tickets), :mod:`~facturador.connector.tickets` (``wait_for_ticket``),
:mod:`~facturador.connector.builders`, :mod:`~facturador.connector.models` (typed answers),
:mod:`~facturador.connector.errors`, :mod:`~facturador.connector.http` (cache, retries),
:mod:`~facturador.connector.config` (tenants file), :mod:`~facturador.connector.hookspecs`,
:mod:`~facturador.connector.plugins` and :mod:`~facturador.connector.forms` (plugins).
The connector imports only :mod:`facturador.sunat` from the project, never the service.
"""

from facturador.connector.client import Client
from facturador.connector.errors import (
    AuthenticationError,
    ConflictError,
    FacturadorError,
    FieldError,
    NotFoundError,
    ServerError,
    TransportError,
    ValidationError,
)
from facturador.connector.forms import FormField
from facturador.connector.hookspecs import hookimpl
from facturador.connector.http import CacheSettings
from facturador.connector.models import (
    AuthorityAnswer,
    ConnectionStatus,
    DocumentList,
    DocumentRecord,
    IssueResult,
    SendResult,
    SummaryRecord,
    TicketRef,
    TicketStatus,
)
from facturador.connector.plugins import PluginError, PluginHost
from facturador.connector.tickets import TicketTimeout, wait_for_ticket

__all__ = [
    "AuthenticationError",
    "AuthorityAnswer",
    "CacheSettings",
    "Client",
    "ConflictError",
    "ConnectionStatus",
    "DocumentList",
    "DocumentRecord",
    "FacturadorError",
    "FieldError",
    "FormField",
    "IssueResult",
    "NotFoundError",
    "PluginError",
    "PluginHost",
    "SendResult",
    "ServerError",
    "SummaryRecord",
    "TicketRef",
    "TicketStatus",
    "TicketTimeout",
    "TransportError",
    "ValidationError",
    "hookimpl",
    "wait_for_ticket",
]
