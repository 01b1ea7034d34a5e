"""Resources per endpoint family: the base class and the families whose endpoints come later.

Each family of the API has one resource object on :class:`~facturador.connector.Client`
(``client.summaries``, ``client.voided``, ...). A family's methods arrive together with its endpoints
in the service; until then its resource exists so that plugins, forms and callers can already name it
(``client.voided.form_fields()``, ``family="voided"`` in hooks). ``client.documents`` is complete: see
:mod:`facturador.connector.documents`.
"""

from __future__ import annotations

from typing import ClassVar

from facturador.connector.forms import FormField
from facturador.connector.http import Transport
from facturador.connector.plugins import PluginHost

__all__ = [
    "DispatchesResource",
    "InventoryResource",
    "ItemsResource",
    "PerceptionsResource",
    "PersonsResource",
    "QuotationsResource",
    "Resource",
    "RetentionsResource",
    "SaleNotesResource",
    "SummariesResource",
    "VoidedResource",
]


class Resource:
    """Base of the resources: the family name, the tenant's transport and plugin host."""

    #: Endpoint family, as passed to the plugin hooks.
    family: ClassVar[str] = ""

    def __init__(self, transport: Transport, plugins: PluginHost) -> None:
        self._transport = transport
        self._plugins = plugins

    def form_fields(self, document_type: str | None = None) -> list[FormField]:
        """Extra form fields plugins contribute for this family (``facturador_form_fields``)."""
        return self._plugins.form_fields(self.family, document_type)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} family={self.family!r} base_url={self._transport.base_url!r}>"


class SummariesResource(Resource):
    """Daily summaries of boletas and their notes (RC): ``POST /api/summaries`` (process 1 add, 2 modify,
    3 void) returns a ticket; ``POST /api/summaries/status`` turns the ticket into a CDR (reference
    §8.6–8.7). Methods arrive with the endpoints."""

    family: ClassVar[str] = "summaries"


class VoidedResource(Resource):
    """Voiding of facturas and their notes (RA, comunicación de baja): ``POST /api/voided`` returns a
    ticket, ``POST /api/voided/status`` its CDR (reference §8.8–8.9). Methods arrive with the endpoints."""

    family: ClassVar[str] = "voided"


class DispatchesResource(Resource):
    """Dispatch guides (09 remitente, 31 transportista): ``POST /api/dispatches``, ``/send``,
    ``/status_ticket`` (reference §8.10–8.13). Methods arrive with the endpoints."""

    family: ClassVar[str] = "dispatches"


class SaleNotesResource(Resource):
    """Sale notes (notas de venta, not sent to SUNAT): ``POST /api/sale-note`` and
    ``/api/sale-note/{id}/generate-cpe`` (reference §8.4–8.5). Methods arrive with the endpoints."""

    family: ClassVar[str] = "sale_notes"


class QuotationsResource(Resource):
    """Quotations: ``POST /api/quotations``, ``GET /api/quotations/list`` (reference §8.14). Methods arrive
    with the endpoints."""

    family: ClassVar[str] = "quotations"


class PersonsResource(Resource):
    """Customers and suppliers: ``POST /api/person``, ``GET /api/persons/{type}/records`` (reference
    §8.15–8.16). Methods arrive with the endpoints."""

    family: ClassVar[str] = "persons"


class ItemsResource(Resource):
    """Products and services: ``POST /api/item``, ``POST /api/items/{id}/update``,
    ``GET /api/document/search-items`` (reference §8.17–8.18). Methods arrive with the endpoints."""

    family: ClassVar[str] = "items"


class InventoryResource(Resource):
    """Stock movements: ``POST /api/inventory/transaction`` (reference §8.19). Methods arrive with the
    endpoint."""

    family: ClassVar[str] = "inventory"


class RetentionsResource(Resource):
    """Retention receipts (20): ``POST /api/retentions`` (reference §8.20). Methods arrive with the
    endpoint."""

    family: ClassVar[str] = "retentions"


class PerceptionsResource(Resource):
    """Perception receipts (40): ``POST /api/perceptions`` (reference §8.21). Methods arrive with the
    endpoint."""

    family: ClassVar[str] = "perceptions"
