"""Collecting every problem of a request body with its path, to answer them all in one 422.

The real services read keys directly and answer 500 when one is missing or of the wrong type; here each
problem becomes a ``FieldError`` naming the field (``items.0.cantidad``), and all are reported at once.
The fields themselves are declared in :mod:`facturador.domain.fields`, which records into a Reader.
"""

from __future__ import annotations

from facturador.errors import FieldError, ServiceError


class Reader:
    """Collects field errors while values are read; ``raise_if_errors`` turns them into one 422."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []
        self.missing: list[str] = []
        self._missing_message = ""  # a message that says what is missing better than the list of paths

    def error(self, path: str, message: str) -> None:
        """Record a problem of the field at ``path``."""
        self.errors.append(FieldError(path, message))

    def missing_field(self, path: str, message: str = "") -> None:
        """Record a required field that is absent (missing, null or blank); ``message`` replaces the
        field's "es obligatorio" and, when given, the 422's own message."""
        self.missing.append(path)
        self._missing_message = self._missing_message or message
        self.errors.append(FieldError(path, message or f"El campo {path} es obligatorio."))

    def has_error(self, path: str) -> bool:
        return any(error.field == path for error in self.errors)

    def require(self, path: str, present: bool, message: str = "") -> None:
        """A field required only in some cases: absent (and not already wrong) is a missing field."""
        if not present and not self.has_error(path):
            self.missing_field(path, message)

    def raise_if_errors(self) -> None:
        if not self.errors:
            return
        if self.missing:
            code = "MISSING_FIELDS"
            message = self._missing_message or "Faltan campos obligatorios: " + ", ".join(self.missing[:10])
            if not self._missing_message:
                if len(self.missing) > 10:
                    message += f" y {len(self.missing) - 10} más"
                message += "."
        else:
            code = "INVALID_FIELDS"
            message = self.errors[0].message
            if len(self.errors) > 1:
                message += f" (y {len(self.errors) - 1} error(es) más)"
        raise ServiceError(422, message, code, list(self.errors))
