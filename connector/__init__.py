"""The connector: a Python client of Facturador PRO tenants (this project's service and real ones).

::

    from connector import Client
    from connector.builders import Customer, Invoice, Line

    with Client("http://127.0.0.1:8000/t/demo", token, name="Demo") as client:
        result = client.documents.issue(
            Invoice(customer=Customer.ruc("20601030013", "EMPRESA XYZ S.A.C."),
                    lines=[Line("Inca Kola 250 ml", 2, unit_price=59)])
        )
        frame = client.documents.list("2026-11-01", "2026-11-30").to_dataframe()

Modules: :mod:`~connector.client` (``Client``), :mod:`~connector.documents`
(``client.documents``), :mod:`~connector.resources` (the other families: ``client.summaries``
and ``client.voided`` answer tickets), :mod:`~connector.tickets` (``wait_for_ticket``),
:mod:`~connector.builders`, :mod:`~connector.models` (typed answers),
:mod:`~connector.errors`, :mod:`~connector.http` (cache, retries),
:mod:`~connector.config` (tenants file), :mod:`~connector.hookspecs`,
:mod:`~connector.plugins` and :mod:`~connector.forms` (plugins).
The connector imports only :mod:`sunat` from the project, never the service.
"""

from connector.client import Client
from connector.errors import (
    AuthenticationError,
    ConflictError,
    FacturadorError,
    FieldError,
    NotFoundError,
    NotOfferedError,
    OutcomeUnknownError,
    RateLimitError,
    ServerError,
    TransportError,
    ValidationError,
)
from connector.forms import FormField
from connector.hookspecs import hookimpl
from connector.http import CacheSettings
from connector.models import (
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
from connector.plugins import PluginError, PluginHost
from connector.tickets import TicketTimeout, wait_for_ticket

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
    "NotOfferedError",
    "OutcomeUnknownError",
    "PluginError",
    "PluginHost",
    "RateLimitError",
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
