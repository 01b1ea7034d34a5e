"""The columns of a document list row: one list for the typed records (:mod:`connector.models`) and
the DataFrames (:mod:`connector.frames`), which both import it (no pandas here)."""

from __future__ import annotations

__all__ = ["AMOUNT_KEYS", "CATEGORY_COLUMNS", "DERIVED_COLUMNS", "DOCUMENT_COLUMNS"]

#: Amount columns of a list row (reference §8.3); ``total_plastic_bag_taxes`` only comes from this service.
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
)
#: Columns of the frame that are not a row key of the same name: read from ``affected_document``.
DERIVED_COLUMNS = ("affected_number", "affected_date")
CATEGORY_COLUMNS = (
    "series",
    "document_type_id",
    "document_type_description",
    "currency_type_id",
    "state_type_id",
    "state_type_description",
    "customer_identity_document_type_id",
)
