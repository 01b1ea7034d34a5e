"""The columns of a document list row: one list for the typed records (:mod:`connector.models`) and
the DataFrames (:mod:`connector.frames`), which both import it (no pandas here)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "AMOUNT_KEYS",
    "CATEGORY_COLUMNS",
    "DERIVED_COLUMNS",
    "DOCUMENT_COLUMNS",
    "REGISTER_AMOUNTS",
    "sale_note_number",
]

#: Amount columns of a list row (``GET /api/documents/lists``); ``total_plastic_bag_taxes`` only comes
#: from this service.
AMOUNT_KEYS = (
    "total_exportation",
    "total_free",
    "total_unaffected",
    "total_exonerated",
    "total_taxed",
    "total_igv",
    "total_plastic_bag_taxes",
    "total",
)

#: The amounts of a row the sales register reads (all but ``total_free``), in the order it reads them
#: (``analysis.register``; the local store checks each is plain enough to be read typed).
REGISTER_AMOUNTS = (
    "total_exportation",
    "total_taxed",
    "total_igv",
    "total_exonerated",
    "total_unaffected",
    "total_plastic_bag_taxes",
    "total",
)

#: Columns of :func:`connector.frames.documents_frame`, in order.
DOCUMENT_COLUMNS = (
    "id",
    "external_id",
    "date_of_issue",
    "number",
    "series",
    "correlative",
    "document_type_id",
    "document_type_description",
    "customer_name",
    "customer_number",
    "currency_type_id",
    *AMOUNT_KEYS,
    "state_type_id",
    "state_type_description",
    "has_xml",
    "has_pdf",
    "has_cdr",
    "download_xml",
    "download_pdf",
    "download_cdr",
    "exchange_rate_sale",
    "customer_identity_document_type_id",
    "note_type_id",
    "affected_number",
    "affected_date",
    "sale_note_number",
)
#: Columns of the frame that are not a row key of the same name: read from ``affected_document`` and
#: from ``sales_note`` (the sale note the document was made from; empty on tenants that do not say).
DERIVED_COLUMNS = ("affected_number", "affected_date", "sale_note_number")
CATEGORY_COLUMNS = (
    "series",
    "document_type_id",
    "document_type_description",
    "currency_type_id",
    "state_type_id",
    "state_type_description",
    "customer_identity_document_type_id",
)


def sale_note_number(value: Any) -> str | None:
    """The number (``NV01-25``) of the sale note a row's ``sales_note`` names: a list of the real
    services' sale-note rows (``number_full`` or ``full_number``); ``None`` when absent or empty."""
    if not isinstance(value, list | tuple) or not value or not isinstance(value[0], dict):
        return None
    number = value[0].get("number_full") or value[0].get("full_number")
    return str(number) if number else None
