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

from sunat.catalogs import State

__all__ = ["State", "WithState", "WithVerdict"]


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
