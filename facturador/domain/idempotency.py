"""Idempotent issuing: the client's key for a sale, and the digest that tells a retry from another sale.

A client that timed out sends the same body again with the same key: the service answers with the
document the key already made instead of issuing a second one. The key comes in the body as
``offline_id`` (what newer real tenants accept) or in the ``Idempotency-Key`` header; it is unique per
tenant and kept with its document for as long as the document exists.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from facturador.domain.fields import Text
from facturador.domain.reader import Reader
from facturador.errors import FieldError, ServiceError

BODY_KEY = "offline_id"
HEADER = "Idempotency-Key"
#: The header a replayed answer carries (``true``); the body says it with ``was_duplicate``.
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 100


#: The key's declaration: the body's ``offline_id`` (in the document's schema), and the header read alike.
KEY = Text(
    "Clave de idempotencia: un reintento con la misma clave y el mismo cuerpo devuelve el documento ya "
    "emitido (was_duplicate), con otro cuerpo es un 409. También en la cabecera Idempotency-Key.",
    max_length=MAX_KEY_LENGTH,
    check=lambda text: None if text.isprintable() else "El campo {path} debe tener caracteres imprimibles.",
    example="caja2-000123",
)


def idempotency_key(body: dict[str, Any], header: str | None) -> str | None:
    """The request's key from ``offline_id`` or the header (absent, null or empty: no key), read with
    :data:`KEY`: 422 ``INVALID_IDEMPOTENCY_KEY`` when it is not a string or a whole number, longer than
    :data:`MAX_KEY_LENGTH` characters or not printable; 422 ``IDEMPOTENCY_KEY_MISMATCH`` when body and
    header both give one and they differ.
    """
    reader = Reader()
    from_body = KEY.read(reader, body[BODY_KEY], BODY_KEY) if body.get(BODY_KEY) is not None else ""
    from_header = KEY.read(reader, header, HEADER) if header is not None else ""
    if reader.errors:
        first = reader.errors[0]
        raise ServiceError(422, first.message, "INVALID_IDEMPOTENCY_KEY", list(reader.errors))
    if from_body and from_header and from_body != from_header:
        message = (
            f"El {BODY_KEY} del cuerpo ({from_body}) no coincide con la cabecera {HEADER} ({from_header})."
        )
        errors = [FieldError(BODY_KEY, message), FieldError(HEADER, message)]
        raise ServiceError(422, message, "IDEMPOTENCY_KEY_MISMATCH", errors)
    return from_body or from_header or None


def body_digest(body: dict[str, Any]) -> str:
    """SHA-256 of the body in a canonical form (sorted keys), without ``offline_id``: the same sale sent
    with its key in the body or in the header has the same digest."""
    canonical = json.dumps(
        {k: v for k, v in body.items() if k != BODY_KEY}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
