"""The audit record of documents whose state was set by hand (``POST /api/documents/updatedocumentstatus``).

Each change keeps who made it (the API user, with the name it had then), when, from which state to
which, and the reason given (``motivo``). The lists answer a document's changes in its row
(``state_changes``, an extra key: empty for a document never changed by hand) and ``GET
/api/documents/state-changes/{external_id}`` answers them alone. Times are answered in Lima's time with
their offset (``2026-12-05T09:15:00-05:00``), as the accountant reads them.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, insert, select

from facturador.domain import states
from facturador.store.models import STATE_CHANGES, USERS
from sunat.calendar import LIMA


def record_change(
    connection: Connection,
    document_id: int,
    user_id: int | None,
    from_state: str,
    to_state: str,
    reason: str,
    *,
    at: float,
) -> None:
    """Record in the caller's transaction that ``user_id`` set the document's state by hand at ``at``
    (epoch seconds)."""
    name = ""
    if user_id is not None:
        name = connection.execute(select(USERS.c.name).where(USERS.c.id == user_id)).scalar() or ""
    connection.execute(
        insert(STATE_CHANGES).values(
            document_id=document_id,
            user_id=user_id,
            user_name=name,
            from_state=from_state,
            to_state=to_state,
            reason=reason.strip(),
            changed_at=dt.datetime.fromtimestamp(at, dt.UTC).replace(tzinfo=None),
        )
    )


def changes_of(connection: Connection, document_ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
    """The changes by hand of each of ``document_ids`` (oldest first), as the API answers them."""
    found: dict[int, list[dict[str, Any]]] = defaultdict(list)
    query = (
        select(STATE_CHANGES)
        .where(STATE_CHANGES.c.document_id.in_(list(document_ids)))
        .order_by(STATE_CHANGES.c.document_id, STATE_CHANGES.c.id)
    )
    for row in connection.execute(query).mappings():
        found[row["document_id"]].append(
            {
                "changed_at": lima_time(row["changed_at"]),
                "user_id": row["user_id"],
                "user_name": row["user_name"],
                "from_state_type_id": row["from_state"],
                "from_state_type_description": states.describe(row["from_state"]),
                "state_type_id": row["to_state"],
                "state_type_description": states.describe(row["to_state"]),
                "reason": row["reason"],
            }
        )
    return dict(found)


def lima_time(moment: dt.datetime) -> str:
    """A stored naive UTC time in Lima's time with its offset, to the second."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(LIMA).replace(microsecond=0).isoformat()
