"""A tenant plugin used by the tests: it stamps the payload and records what it saw."""

from __future__ import annotations

from typing import Any

from connector import FormField, hookimpl

SEEN: list[tuple[str, Any]] = []


@hookimpl(families="documents")
def facturador_form_fields() -> list[FormField]:
    return [FormField("sample.note", "Nota del tenant", "text", section="Tenant")]


@hookimpl
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    note = values.get("sample.note")
    if not note:
        return None
    return {**payload, "informacion_adicional": f"{note}"}


@hookimpl
def facturador_issued(family: str, result: object) -> None:
    SEEN.append((family, result))
