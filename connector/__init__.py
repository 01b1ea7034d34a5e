"""The connector: a Python client of Facturador PRO tenants (this project's service and real ones).

::

    from connector import Client
    from connector.builders import Customer, Invoice, Line

    with Client("http://127.0.0.1:8000/t/demo", token, name="Demo") as client:
        result = client.documents.issue(
            Invoice(customer=Customer.ruc("20601030013", "EMPRESA XYZ S.A.C."),
                    lines=[Line("Inca Kola 250 ml", 2, unit_price=59)])
        )
        result.state                                   # State.ACCEPTED, equal to "05"
        frame = client.documents.list("2026-11-01", "2026-11-30").to_dataframe()
        ref = client.voided.void("2026-11-30", [(result.external_id, "Error en el RUC")])
        status = ref.wait(timeout=30)                  # the ticket waits for itself

Every family (``client.documents``, ``summaries``, ``voided``, ``dispatches``, ``retentions``,
``perceptions``, ``sale_notes``, ``quotations``, ``persons``, ``items``, ``inventory``) says the same
things the same way:

* **verbs** — ``issue`` a numbered document of a series (documents, guides, sale notes, retentions,
  perceptions); ``create`` a record that is not issued (quotations, persons, products) and ``update``
  it; ``declare``, ``void`` and ``reverse`` for what answers a ticket. Each runs the family's one
  plugin pipeline (:mod:`connector.resources`);
* **lists** — ``list(...)`` (and ``latest()``, ``search()``) answer a sequence of typed records — a
  :class:`DocumentList` for documents, a :class:`~connector.lists.RecordList` for the rest — and
  ``.to_dataframe()`` makes it a DataFrame;
* **files** — ``download_xml(id)``, ``download_pdf(id[, fmt])``, ``download_cdr(id)``;
* **tickets** — a :class:`TicketRef` (and a guide's ``GuideSent``) ``wait()`` s for itself; the
  family's ``wait(external_id=...)`` waits for one known by its id;
* **states** — ``.state`` is a :class:`~connector.states.State`: the code (equal to ``"05"``), the
  name and the description.

Modules: :mod:`~connector.client` (``Client``), one module per family (:mod:`~connector.documents`,
:mod:`~connector.tickets`, :mod:`~connector.dispatches`, :mod:`~connector.withholding`,
:mod:`~connector.sale_notes`, :mod:`~connector.quotations`, :mod:`~connector.persons`,
:mod:`~connector.items`, :mod:`~connector.inventory`), :mod:`~connector.builders`,
:mod:`~connector.models` (typed answers), :mod:`~connector.errors`, :mod:`~connector.http` (cache,
retries, rate limit), :mod:`~connector.transports` (``Client(transport=...)``), :mod:`~connector.config`
(tenants file), :mod:`~connector.hookspecs`, :mod:`~connector.plugins` and :mod:`~connector.forms`
(plugins). The connector imports only :mod:`sunat` from the project, never the service nor the
analyst's figures (:mod:`analysis`, beside it).
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
from connector.lists import RecordList
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
from connector.states import State
from connector.tickets import TicketTimeout, wait_for_ticket
from connector.transports import MockTransport, RecordingTransport

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
    "MockTransport",
    "NotFoundError",
    "NotOfferedError",
    "OutcomeUnknownError",
    "PluginError",
    "PluginHost",
    "RateLimitError",
    "RecordList",
    "RecordingTransport",
    "SendResult",
    "ServerError",
    "State",
    "SummaryRecord",
    "TicketRef",
    "TicketStatus",
    "TicketTimeout",
    "TransportError",
    "ValidationError",
    "hookimpl",
    "wait_for_ticket",
]
