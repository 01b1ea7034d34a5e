"""Form fields that plugins contribute to the dashboard (``facturador_form_fields``).

A :class:`FormField` describes one input; the dashboard renders it in its ``section`` and collects the
values in a dict keyed by :attr:`FormField.key`, which the client hands to ``facturador_prepare_payload``
as ``values``. Keys are namespaced by plugin (``detraction.code``, ``instalments.rows``) so plugins do
not collide.

Values by kind: ``text`` / ``select`` → ``str``; ``number`` → ``int``, ``float`` or ``Decimal``;
``date`` → :class:`datetime.date`; ``checkbox`` → ``bool``; ``table`` → a list of dicts keyed by the
columns' keys (or a pandas DataFrame with those columns: plugins accept both).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["FIELD_KINDS", "FieldKind", "FormField"]

FieldKind = Literal["text", "number", "date", "select", "checkbox", "table"]
FIELD_KINDS: tuple[str, ...] = ("text", "number", "date", "select", "checkbox", "table")


@dataclass(frozen=True)
class FormField:
    """One extra input of a dashboard form.

    :param key: the key of the value in ``values`` (namespaced: ``"detraction.account"``).
    :param label: what the user reads.
    :param kind: ``text``, ``number``, ``date``, ``select``, ``checkbox`` or ``table``.
    :param options: for ``select``: ``(value, label)`` pairs, in order; ``""`` as a value means "none".
    :param default: initial value (``None``: empty).
    :param help: a tooltip.
    :param section: heading under which the dashboard groups the field (``"Detracción"``).
    :param required: the form should not be submitted without it (when its section is in use).
    :param columns: for ``table``: one :class:`FormField` per column (their ``key`` is the dict key of
        each row).
    :param min_value: for ``number``: the lowest value allowed.
    """

    key: str
    label: str
    kind: FieldKind = "text"
    options: tuple[tuple[str, str], ...] = ()
    default: Any = None
    help: str = ""
    section: str = ""
    required: bool = False
    columns: tuple[FormField, ...] = ()
    min_value: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in FIELD_KINDS:
            raise ValueError(f"form field {self.key!r}: unknown kind {self.kind!r} (one of {FIELD_KINDS})")
        if self.kind == "select" and not self.options:
            raise ValueError(f"form field {self.key!r}: a select needs options")
        if self.kind == "table" and not self.columns:
            raise ValueError(f"form field {self.key!r}: a table needs columns")
