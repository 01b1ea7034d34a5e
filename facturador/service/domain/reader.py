"""Reading a Spanish JSON body field by field, collecting every problem with its path.

The real services read keys directly and answer 500 when one is missing or of the wrong type; here each
problem becomes a ``FieldError`` naming the field (``items.0.cantidad``), and all are reported at once.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from facturador.service.errors import FieldError, ServiceError
from facturador.sunat.money import to_decimal

_MISSING = object()
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TIME_RE = re.compile(r"^\d{2}:\d{2}(:\d{2})?$")


class Reader:
    """Collects field errors while values are read; ``raise_if_errors`` turns them into one 422."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []
        self.missing: list[str] = []
        self._broken: list[str] = []  # containers of the wrong type: their children are not reported

    def _under_broken(self, path: str) -> bool:
        return any(path.startswith(prefix + ".") for prefix in self._broken)

    def error(self, path: str, message: str, *, container: bool = False) -> None:
        """Record a problem; ``container`` marks a wrong-typed object or list whose children are skipped."""
        self.errors.append(FieldError(path, message))
        if container:
            self._broken.append(path)

    def _get(self, obj: Mapping[str, Any], key: str, path: str, required: bool) -> Any:
        value = obj.get(key, _MISSING) if isinstance(obj, Mapping) else _MISSING
        if (
            value is _MISSING
            or value is None
            or (isinstance(value, str) and value.strip() == "" and required)
        ):
            if required and not self._under_broken(path):
                self.missing.append(path)
                self.error(path, f"El campo {path} es obligatorio.")
            return _MISSING
        return value

    def text(
        self,
        obj: Mapping[str, Any],
        key: str,
        path: str,
        *,
        required: bool = True,
        default: str = "",
        max_length: int | None = None,
    ) -> str:
        """A string; numbers are accepted and turned into their text (real clients send both)."""
        value = self._get(obj, key, path, required)
        if value is _MISSING:
            return default
        if isinstance(value, bool) or not isinstance(value, str | int):
            self.error(path, f"El campo {path} debe ser un texto.")
            return default
        text = str(value).strip()
        if max_length is not None and len(text) > max_length:
            self.error(path, f"El campo {path} no debe superar {max_length} caracteres.")
        return text

    def code(
        self,
        obj: Mapping[str, Any],
        key: str,
        path: str,
        catalog: Mapping[str, Any] | frozenset[str] | set[str],
        catalog_name: str,
        *,
        required: bool = True,
        default: str = "",
        upper: bool = False,
    ) -> str:
        """A code that must be in a SUNAT catalog."""
        value = self.text(obj, key, path, required=required, default=default)
        if upper:
            value = value.upper()
        if value and value not in catalog:
            self.error(path, f"El código {value} del campo {path} no existe en el {catalog_name}.")
        return value

    def decimal(
        self,
        obj: Mapping[str, Any],
        key: str,
        path: str,
        *,
        required: bool = True,
        default: Decimal | None = Decimal("0"),
        minimum: Decimal | None = Decimal("0"),
        positive: bool = False,
    ) -> Decimal:
        """A number given as a JSON number or a numeric string."""
        value = self._get(obj, key, path, required)
        if value is _MISSING:
            return default if default is not None else Decimal("0")
        try:
            number = to_decimal(value)
        except ValueError:
            self.error(path, f"El campo {path} debe ser un número.")
            return Decimal("0")
        if positive and number <= 0:
            self.error(path, f"El campo {path} debe ser mayor que 0.")
        elif minimum is not None and number < minimum:
            self.error(path, f"El campo {path} no puede ser negativo.")
        return number

    def has(self, obj: Mapping[str, Any], key: str) -> bool:
        return isinstance(obj, Mapping) and obj.get(key) is not None

    def date(self, obj: Mapping[str, Any], key: str, path: str, *, required: bool = True) -> dt.date | None:
        value = self.text(obj, key, path, required=required)
        if not value:
            return None
        if DATE_RE.match(value):
            try:
                return dt.date.fromisoformat(value)
            except ValueError:
                pass
        self.error(path, f"El campo {path} debe ser una fecha válida con formato AAAA-MM-DD.")
        return None

    def time(self, obj: Mapping[str, Any], key: str, path: str, *, required: bool = True) -> dt.time | None:
        value = self.text(obj, key, path, required=required)
        if not value:
            return None
        if TIME_RE.match(value):
            try:
                return dt.time.fromisoformat(value if value.count(":") == 2 else value + ":00")
            except ValueError:
                pass
        self.error(path, f"El campo {path} debe ser una hora válida con formato HH:MM:SS.")
        return None

    def boolean(self, obj: Mapping[str, Any], key: str, path: str, *, default: bool) -> bool:
        value = obj.get(key) if isinstance(obj, Mapping) else None
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        if value in (0, 1, "0", "1", "true", "false"):
            return value in (1, "1", "true")
        self.error(path, f"El campo {path} debe ser verdadero o falso.")
        return default

    def obj(self, obj: Mapping[str, Any], key: str, path: str, *, required: bool = True) -> Mapping[str, Any]:
        value = self._get(obj, key, path, required)
        if value is _MISSING:
            return {}
        if not isinstance(value, Mapping):
            self.error(path, f"El campo {path} debe ser un objeto.", container=True)
            return {}
        return value

    def array(self, obj: Mapping[str, Any], key: str, path: str, *, required: bool = True) -> list[Any]:
        value = self._get(obj, key, path, required)
        if value is _MISSING:
            return []
        if not isinstance(value, list):
            self.error(path, f"El campo {path} debe ser una lista.", container=True)
            return []
        return value

    def raise_if_errors(self) -> None:
        if not self.errors:
            return
        if self.missing:
            code = "MISSING_FIELDS"
            message = "Faltan campos obligatorios: " + ", ".join(self.missing[:10])
            if len(self.missing) > 10:
                message += f" y {len(self.missing) - 10} más"
            message += "."
        else:
            code = "INVALID_FIELDS"
            message = self.errors[0].message
            if len(self.errors) > 1:
                message += f" (y {len(self.errors) - 1} error(es) más)"
        raise ServiceError(422, message, code, list(self.errors))
