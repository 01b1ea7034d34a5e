"""Document states and how the authority's answer moves them (``docs/facturador_pro_api.md``, document
states)."""

from __future__ import annotations

from facturador.authority.gateway import ResponseKind, kind_of
from sunat.catalogs import STATE_TYPES, State

# the codes as plain strings (they are stored and compared in SQL); their names are sunat.catalogs.State's
REGISTERED = State.REGISTERED.value
SENT = State.SENT.value
ACCEPTED = State.ACCEPTED.value
OBSERVED = State.OBSERVED.value
REJECTED = State.REJECTED.value
VOIDED = State.VOIDED.value
CANCELING = State.VOIDING.value


def describe(state: str) -> str:
    """The Spanish description real tenants return for a state code."""
    return STATE_TYPES.get(state, state)


def state_after_answer(
    code: str, notes: tuple[str, ...] | list[str], current: str, has_cdr: bool = True
) -> tuple[str, bool]:
    """The state a document takes after the authority answered ``code``; and whether it must be regularized.

    0 -> 05 (or 07 with observations); 2000-3999 -> 09 (the number stays consumed); >= 4000 -> 07 when it
    comes in a CDR (``has_cdr``); exceptions (0100-1999), a non-numeric code or 4000+ without a CDR leave
    the state as it was and flag it for re-sending.
    """
    kind = kind_of(code, bool(notes), has_cdr)
    if kind is ResponseKind.ACCEPTED:
        return ACCEPTED, False
    if kind is ResponseKind.OBSERVED:
        return OBSERVED, False
    if kind is ResponseKind.REJECTED:
        return REJECTED, False
    return current, True
