"""The simulated SUNAT's access tokens, one mechanism for its REST APIs (GRE, SIRE, validity): claims
with an expiry, signed with HMAC-SHA256 under the simulator's secret (``<payload>.<signature>``, both
base64url), given by its token endpoints and read from each request's ``Authorization: Bearer``.

SUNAT's own tokens are JWTs its clients never open; these only have to be refused as SUNAT refuses a
missing, forged or expired one (401 and its text)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from typing import Any

__all__ = ["TokenError", "TokenRefused", "issue_token", "read_token"]

#: SUNAT's text of each refusal.
_MISSING = "No autorizado: falta el token de acceso"
_INVALID = "No autorizado: token de acceso no valido"
_EXPIRED = "No autorizado: el token de acceso ha expirado"


class TokenError(Exception):
    """A token endpoint refuses: HTTP ``status`` and the OAuth ``error`` / ``error_description``."""

    def __init__(self, status: int, error: str, description: str) -> None:
        super().__init__(f"{error}: {description}")
        self.status = status
        self.error = error
        self.description = description

    def body(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}


class TokenRefused(Exception):
    """A request's bearer token is missing, forged or expired; ``message`` is SUNAT's text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _signature(secret: bytes, payload: str) -> str:
    return _b64(hmac.new(secret, payload.encode(), hashlib.sha256).digest())


def issue_token(secret: bytes, claims: dict[str, Any], ttl: int, now: float) -> str:
    """A token carrying ``claims`` that expires ``ttl`` seconds after ``now`` (epoch seconds)."""
    payload = _b64(json.dumps({**claims, "exp": int(now) + ttl}).encode())
    return f"{payload}.{_signature(secret, payload)}"


def read_token(secret: bytes, authorization: str | None, now: float) -> dict[str, Any]:
    """The claims of the ``Bearer`` token of an ``Authorization`` header; :class:`TokenRefused` when it is
    missing, not signed with ``secret`` or expired at ``now``."""
    scheme, _, token = (authorization or "").partition(" ")
    payload, _, signature = token.strip().partition(".")
    if scheme.lower() != "bearer" or not payload or not signature:
        raise TokenRefused(_MISSING)
    if not hmac.compare_digest(_signature(secret, payload), signature):
        raise TokenRefused(_INVALID)
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (ValueError, binascii.Error):  # pragma: no cover - signed by us, so well-formed
        raise TokenRefused(_INVALID) from None
    if not isinstance(claims, dict) or int(claims.get("exp", 0)) <= now:
        raise TokenRefused(_EXPIRED)
    return claims
