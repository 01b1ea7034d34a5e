"""A document's state (``state_type_id``) as an enum: its SUNAT code, its name, and its description.

Every typed answer and record with a ``state_type_id`` (the code the service sends, ``"05"``) has a
``state`` property: a :class:`State`, which *is* a string equal to its code, so old comparisons keep
working::

    result = client.documents.issue(invoice)
    result.state                      # <State.ACCEPTED: '05'>
    result.state == "05"              # True
    result.state is State.ACCEPTED    # True
    result.state.code, result.state.description   # ('05', 'Aceptado')

A code outside the catalog (a tenant's own) still gives a :class:`State`, named ``UNKNOWN`` and equal to
that code; an empty code is ``State.NONE``.
"""

from __future__ import annotations

from enum import StrEnum

from sunat.catalogs import STATE_TYPES

__all__ = ["State", "WithState", "WithVerdict"]


class State(StrEnum):
    """Facturador PRO's document states (``state_type_id``), each equal to its code."""

    REGISTERED = "01"
    SENT = "03"
    ACCEPTED = "05"
    OBSERVED = "07"
    REJECTED = "09"
    VOIDED = "11"
    VOIDING = "13"
    #: No state in the answer.
    NONE = ""

    @property
    def code(self) -> str:
        """The code the service sends (``"05"``)."""
        return self.value

    @property
    def description(self) -> str:
        """The description real tenants give (``"Aceptado"``); the code itself when unknown."""
        return STATE_TYPES.get(self.value, self.value)

    @property
    def accepted(self) -> bool:
        """Accepted by SUNAT, without (05) or with observations (07)."""
        return self in (State.ACCEPTED, State.OBSERVED)

    @classmethod
    def _missing_(cls, value: object) -> State | None:
        """A code outside the catalog: a member named ``UNKNOWN`` equal to it (kept, one per code)."""
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = "UNKNOWN"
        member._value_ = value
        return cls._value2member_map_.setdefault(value, member)  # type: ignore[return-value]


class WithState:
    """An answer or record with a ``state_type_id``: its :attr:`state`."""

    state_type_id: str

    @property
    def state(self) -> State:
        """The state as a :class:`State` (equal to its code: ``result.state == "05"``)."""
        return State(self.state_type_id)


class WithVerdict(WithState):
    """A document SUNAT judged one by one: :attr:`accepted` (05, 07) or :attr:`rejected` (09)."""

    @property
    def accepted(self) -> bool:
        """SUNAT accepted it (05), without or with observations (07)."""
        return self.state.accepted

    @property
    def rejected(self) -> bool:
        """SUNAT rejected it (09): the number is used, the document has no fiscal value."""
        return self.state is State.REJECTED
