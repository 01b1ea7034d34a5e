"""The e-mail deliveries of documents and sale notes as the API shows them, and the SMTP settings'
checks (see :mod:`facturador.domain.email_delivery`, which queues and sends them)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from facturador.store.models import EMAIL_DELIVERIES
from sunat.calendar import LIMA

QUEUED, SENT, FAILED = "queued", "sent", "failed"
TLS_MODES = ("none", "starttls", "ssl")
ADDRESS_RE = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
HOST_RE = re.compile(r"^[A-Za-z0-9.-]{1,253}$")


def check_smtp_changes(changes: dict[str, Any]) -> dict[str, Any]:
    """``changes`` to the SMTP settings, checked; raises ValueError saying what is wrong."""
    checked: dict[str, Any] = {}
    for key, value in changes.items():
        if value is None:
            continue
        if key == "smtp_host":
            if value and not HOST_RE.match(value):
                raise ValueError("smtp_host takes a host name or an IP address")
        elif key == "smtp_port":
            if not 1 <= int(value) <= 65535:
                raise ValueError("smtp_port takes 1 to 65535")
            value = int(value)
        elif key == "smtp_tls":
            if value not in TLS_MODES:
                raise ValueError(f"smtp_tls is one of {', '.join(TLS_MODES)}")
        elif key == "smtp_from":
            if value and not ADDRESS_RE.match(value):
                raise ValueError(f"smtp_from must be an e-mail address, not {value!r}")
        elif key in ("smtp_user", "smtp_from_name", "smtp_cafile"):
            if len(value) > 255 or any(ord(char) < 32 for char in value):
                raise ValueError(f"{key} must be at most 255 characters, without control characters")
        checked[key] = value
    return checked


def deliveries_of(
    connection: Connection, tenant_id: int, kind: str, target_ids: list[int]
) -> dict[int, list[dict[str, Any]]]:
    """The deliveries of each of ``target_ids`` (oldest first), as the API shows them."""
    if not target_ids:
        return {}
    query = (
        select(EMAIL_DELIVERIES)
        .where(
            EMAIL_DELIVERIES.c.tenant_id == tenant_id,
            EMAIL_DELIVERIES.c.kind == kind,
            EMAIL_DELIVERIES.c.target_id.between(min(target_ids), max(target_ids)),
        )
        .order_by(EMAIL_DELIVERIES.c.id)
    )
    wanted = set(target_ids)
    found: dict[int, list[dict[str, Any]]] = {}
    for row in connection.execute(query):
        if row.target_id in wanted:
            found.setdefault(row.target_id, []).append(shown(row))
    return found


def lima(moment: dt.datetime | None) -> str | None:
    """A naive UTC moment as Lima's wall clock, ``YYYY-MM-DD HH:MM:SS``."""
    if moment is None:
        return None
    return moment.replace(tzinfo=dt.UTC).astimezone(LIMA).strftime("%Y-%m-%d %H:%M:%S")


def shown(row: Any) -> dict[str, Any]:
    """A delivery as the API shows it: real PRO's ``email_send_it_array`` keys (``email``, ``send_it``,
    ``send_date``) and this service's state, attempts, last error and times (Lima)."""
    return {
        "id": row.id,
        "email": row.address,
        "send_it": row.state == SENT,
        "send_date": (lima(row.sent_at or row.created_at) or "")[:16],
        "state": row.state,
        "attempts": row.attempts,
        "last_error": row.last_error,
        "created_at": lima(row.created_at),
        "updated_at": lima(row.updated_at),
        "sent_at": lima(row.sent_at),
        "next_attempt_at": lima(row.next_attempt_at) if row.state == QUEUED else None,
    }


__all__ = [
    "ADDRESS_RE",
    "FAILED",
    "QUEUED",
    "SENT",
    "TLS_MODES",
    "check_smtp_changes",
    "deliveries_of",
    "lima",
    "shown",
]
