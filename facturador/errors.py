"""Errors the service answers with: status, Spanish message, machine code and per-field errors."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FieldError:
    field: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}


@dataclass
class ServiceError(Exception):
    """An error answered as ``{"success": false, "message", "error_code", "errors"}``."""

    status: int
    message: str
    error_code: str
    errors: list[FieldError] = field(default_factory=list)

    def __str__(self) -> str:
        return self.message

    def body(self) -> dict:
        return {
            "success": False,
            "message": self.message,
            "error_code": self.error_code,
            "errors": [e.as_dict() for e in self.errors],
        }


def validation_error(message: str, error_code: str, errors: list[FieldError] | None = None) -> ServiceError:
    """422: the request is well formed but breaks a rule."""
    return ServiceError(422, message, error_code, errors or [])


def field_error(field_name: str, message: str, error_code: str = "INVALID_FIELD") -> ServiceError:
    """422 about one field; the message is the field's own."""
    return ServiceError(422, message, error_code, [FieldError(field_name, message)])


def not_found(
    message: str, error_code: str = "DOCUMENT_NOT_FOUND", field_name: str | None = None
) -> ServiceError:
    errors = [FieldError(field_name, message)] if field_name else []
    return ServiceError(404, message, error_code, errors)


def conflict(
    message: str, error_code: str = "DUPLICATE_DOCUMENT", field_name: str | None = None
) -> ServiceError:
    errors = [FieldError(field_name, message)] if field_name else []
    return ServiceError(409, message, error_code, errors)


NOT_AUTHENTICATED = "No se encuentra autenticado"
