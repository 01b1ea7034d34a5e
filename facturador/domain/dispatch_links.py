"""Links between a tenant's sales documents and its dispatch guides, and who moves the stock.

- A factura or boleta may name a guide of its tenant by ``guias[].external_id``: it takes the guide's
  number and type (09/31) for its ``cac:DespatchDocumentReference``.
- A guide may name the factura or boleta it carries (catalog 61 types 01/03) by ``documento_afectado``
  (``external_id``, or ``serie_documento`` + ``numero_documento`` + ``codigo_tipo_documento`` as the
  real services take it) or by ``documento_relacionado[].external_id``.

Stock rule (one move per sale): a guide with reason 01 (venta) takes its goods out of the warehouse and
one with reason 02 (compra) puts them in, **unless** it names a document of its tenant that already
moved stock (a factura or boleta issued first); and a factura or boleta that names a guide of its
tenant that already moved stock (a guide issued first) does not move it again. Names by number count as
well as by external_id, when the number is one of the tenant's own documents (no other RUC given).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Table, select
from sqlalchemy.engine import Connection

from facturador.issued import Guide
from facturador.store.models import DISPATCHES, DOCUMENTS, INVENTORY_MOVES

__all__ = ["LinkedDocument", "find_document", "find_guide", "moved_stock", "resolve_guides"]

#: The sales documents a guide may carry (catalog 61 types).
SALES_TYPES = ("01", "03")
GUIDE_TYPES = ("09", "31")


@dataclass(frozen=True)
class LinkedDocument:
    """A document or guide of the tenant that another one names."""

    id: int
    doc_type: str
    number: str  # series-number


def _split(number: str) -> tuple[str, int] | None:
    series, _, correlative = number.strip().partition("-")
    if not series or not correlative.isdigit() or len(correlative) > 8:
        return None
    return series.upper(), int(correlative)


def find_document(
    connection: Connection,
    tenant_id: int,
    *,
    external_id: str = "",
    doc_type: str = "",
    number: str = "",
) -> LinkedDocument | None:
    """The tenant's factura or boleta with ``external_id``, or of ``doc_type`` numbered ``number``."""
    return _find(connection, DOCUMENTS, SALES_TYPES, tenant_id, external_id, doc_type, number)


def find_guide(
    connection: Connection,
    tenant_id: int,
    *,
    external_id: str = "",
    doc_type: str = "",
    number: str = "",
) -> LinkedDocument | None:
    """The tenant's guide (09 or 31) with ``external_id``, or of ``doc_type`` numbered ``number``."""
    return _find(connection, DISPATCHES, GUIDE_TYPES, tenant_id, external_id, doc_type, number)


def _find(
    connection: Connection,
    table: Table,
    types: tuple[str, ...],
    tenant_id: int,
    external_id: str,
    doc_type: str,
    number: str,
) -> LinkedDocument | None:
    """The tenant's row of ``table`` of one of ``types``, by ``external_id`` or by type and number."""
    condition = (table.c.tenant_id == tenant_id) & table.c.document_type_id.in_(types)
    if external_id:
        condition &= table.c.external_id == external_id
    else:
        parts = _split(number)
        if parts is None or doc_type not in types:
            return None
        condition &= (
            (table.c.document_type_id == doc_type)
            & (table.c.series == parts[0])
            & (table.c.number == parts[1])
        )
    row = connection.execute(
        select(table.c.id, table.c.document_type_id, table.c.series, table.c.number).where(condition)
    ).first()
    if row is None:
        return None
    return LinkedDocument(row.id, row.document_type_id, f"{row.series}-{row.number}")


def moved_stock(connection: Connection, *, documents: Iterable[int] = (), guides: Iterable[int] = ()) -> bool:
    """Whether any of these documents or guides has a kardex line (moved stock)."""
    document_ids, guide_ids = list(documents), list(guides)
    conditions = []
    if document_ids:
        conditions.append(INVENTORY_MOVES.c.document_id.in_(document_ids))
    if guide_ids:
        conditions.append(INVENTORY_MOVES.c.dispatch_id.in_(guide_ids))
    for condition in conditions:
        if connection.scalar(select(INVENTORY_MOVES.c.id).where(condition).limit(1)) is not None:
            return True
    return False


def resolve_guides(
    connection: Connection, tenant_id: int, guides: Iterable[Guide]
) -> tuple[tuple[Guide, ...], list[int], list[tuple[int, str]]]:
    """The guides of a sales document with those named by ``external_id`` resolved to their number and
    type; the ids of the tenant's guides named (by external_id or number) and the unknown external ids
    as ``(index, external_id)``."""
    resolved: list[Guide] = []
    ids: list[int] = []
    unknown: list[tuple[int, str]] = []
    for index, guide in enumerate(guides):
        if guide.external_id:
            found = find_guide(connection, tenant_id, external_id=guide.external_id)
            if found is None:
                unknown.append((index, guide.external_id))
                resolved.append(guide)
                continue
            resolved.append(Guide(found.number, found.doc_type, guide.external_id))
        else:
            found = find_guide(connection, tenant_id, doc_type=guide.doc_type, number=guide.number)
            resolved.append(guide)
        if found is not None:
            ids.append(found.id)
    return tuple(resolved), ids, unknown
