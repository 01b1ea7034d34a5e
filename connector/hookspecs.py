"""Hook specifications of the connector's plugin system (pluggy, project name ``"facturador"``).

Every hook takes ``family``: the endpoint family the call is about (:data:`FAMILIES`: ``"documents"``,
``"summaries"``, ``"voided"``, ...), so one set of hooks serves every family. An implementation names
the families it serves on its marker, ``@hookimpl(families="documents")``, and the host calls it for
those alone (without ``families`` it hears every family and reads ``family`` itself)::

    from connector import hookimpl

    @hookimpl(families="documents")
    def facturador_validate_payload(payload):
        ...

Implementations may accept any subset of a hook's arguments (pluggy passes them by name). The full
guide with a worked tenant plugin is ``docs/plugin_hooks.md``; the host side (registration, order, the
typed facade) is :mod:`connector.plugins`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import pluggy

if TYPE_CHECKING:  # pragma: no cover
    from connector.errors import FieldError
    from connector.forms import FormField

__all__ = ["FAMILIES", "PROJECT", "HookimplMarker", "families_served", "hookimpl", "hookspec"]

#: Name of the plugin system: markers, entry-point group, environment variable prefix.
PROJECT = "facturador"

hookspec = pluggy.HookspecMarker(PROJECT)

#: Endpoint families (one resource of :class:`~connector.Client` each).
FAMILIES: tuple[str, ...] = (
    "documents",
    "summaries",
    "voided",
    "dispatches",
    "sale_notes",
    "quotations",
    "persons",
    "items",
    "inventory",
    "retentions",
    "perceptions",
)


#: Attribute of an implementation that names the families it serves (set by ``@hookimpl(families=...)``).
FAMILIES_ATTRIBUTE = f"{PROJECT}_families"

_F = TypeVar("_F", bound=Callable[..., Any])


class HookimplMarker:
    """``@hookimpl``: pluggy's marker of hook implementations, plus ``families``: the endpoint families
    the implementation serves (a name or several); the host calls it only for those. Unknown names are a
    :class:`ValueError` at once (a misspelt family would otherwise never be called). A plain
    ``pluggy.HookimplMarker("facturador")`` still works: its implementations hear every family."""

    def __init__(self, project_name: str) -> None:
        self.project_name = project_name
        self._pluggy = pluggy.HookimplMarker(project_name)

    def __call__(
        self,
        function: _F | None = None,
        *,
        families: str | Iterable[str] | None = None,
        tryfirst: bool = False,
        trylast: bool = False,
        optionalhook: bool = False,
        specname: str | None = None,
        hookwrapper: bool = False,
        wrapper: bool = False,
    ) -> Any:
        """Mark ``function`` (``@hookimpl``), or return the marker of these options
        (``@hookimpl(families="documents", trylast=True)``)."""
        served = _families(families)

        def mark(implementation: _F) -> _F:
            self._pluggy(
                implementation,
                tryfirst=tryfirst,
                trylast=trylast,
                optionalhook=optionalhook,
                specname=specname,
                hookwrapper=hookwrapper,
                wrapper=wrapper,
            )
            if served is not None:
                setattr(implementation, FAMILIES_ATTRIBUTE, served)
            return implementation

        return mark(function) if function is not None else mark


def _families(families: str | Iterable[str] | None) -> frozenset[str] | None:
    if families is None:
        return None
    named = frozenset([families] if isinstance(families, str) else families)
    unknown = sorted(named - set(FAMILIES))
    if unknown or not named:
        raise ValueError(f"unknown families {unknown or '(none given)'}: they are {', '.join(FAMILIES)}")
    return named


def families_served(implementation: object) -> frozenset[str] | None:
    """The families an implementation serves (``@hookimpl(families=...)``), ``None`` for every family."""
    return getattr(implementation, FAMILIES_ATTRIBUTE, None)


hookimpl = HookimplMarker(PROJECT)


@hookspec
def facturador_form_fields(family: str, document_type: str | None) -> list[FormField]:  # type: ignore[empty-body]
    """Extra fields for the dashboard form that creates a ``family`` request.

    :param family: endpoint family (``"documents"`` ...).
    :param document_type: catalog 01 code of the document being built (``"01"`` factura, ``"03"``
        boleta, ``"07"``/``"08"`` notes, ...), or ``None`` when the form is not about one type.
    :return: a list of :class:`~connector.forms.FormField` (``[]`` or ``None`` for none).
        Keys should be namespaced by plugin (``"detraction.code"``). The client concatenates the lists
        in registration order (built-ins first).
    """


@hookspec
def facturador_prepare_payload(
    family: str, payload: dict[str, Any], values: dict[str, Any]
) -> dict[str, Any] | None:
    """Add or enrich blocks of an outgoing ``family`` payload from the form ``values``.

    Runs before validation and sending, as a **pipeline**: each implementation receives the payload
    returned by the previous one (order: ``tryfirst`` ones, then registration order — built-ins, then
    ``plugins=``, entry points, ``plugins_dir`` —, then ``trylast`` ones).

    **Never mutate** ``payload`` (nor ``values``): return a *new* dict — typically
    ``{**payload, "block": ...}``, copying any nested list or dict you change — or ``None`` for no
    change. The client hands each implementation its own deep copy and raises
    :class:`~connector.plugins.PluginError` when an implementation changed it in place
    and returned ``None``, so a mutation is never silently kept or lost.

    :param family: endpoint family.
    :param payload: the Spanish wire payload built so far.
    :param values: values of the dashboard form keyed by :attr:`FormField.key
        <connector.forms.FormField.key>` (``{}`` when the call did not come from a form).
    :return: the new payload, or ``None``.
    """


@hookspec
def facturador_validate_payload(  # type: ignore[empty-body]
    family: str, payload: dict[str, Any]
) -> list[str | FieldError]:
    """Problems in a ``family`` payload found before anything is sent.

    Runs after :func:`facturador_prepare_payload` on the final payload. If any implementation returns
    problems the client raises :class:`~connector.errors.ValidationError` (``status`` is
    ``None``) without any HTTP call; each problem becomes one of its ``field_errors``.

    :param family: endpoint family.
    :param payload: the payload about to be sent (a copy: do not change it).
    :return: messages (``str``), or :class:`~connector.errors.FieldError` to name the field
        (a dotted path of the payload, like the service's ``errors``); ``[]`` or ``None`` when fine.
    """


@hookspec
def facturador_issued(family: str, payload: dict[str, Any], result: object) -> None:
    """React to a successful ``family`` creation (log it, notify, store the number ...).

    Called after the service accepted the request that creates the family's object — every call of the
    family's pipeline: ``issue`` (documents, dispatches, sale notes, retentions, perceptions),
    ``create`` / ``update`` (quotations, persons; products are created so, their edits run no hook),
    ``add`` / ``remove`` (inventory), ``declare`` / ``void`` / ``reverse`` (tickets) — not after
    ``send``, ``update_status``, ``generate_cpe`` or a ticket's ``status``. An exception raised here is
    logged (logger ``connector``) and does **not** propagate: the object exists whatever a plugin does
    afterwards.

    :param family: endpoint family.
    :param payload: the payload that was sent (a copy).
    :param result: the typed answer: :class:`~connector.models.IssueResult` (``documents``),
        :class:`~connector.models.TicketRef` (``summaries``, ``voided``, and the reversions of
        ``retentions`` and ``perceptions``), :class:`~connector.withholding.WithholdingResult`
        (``retentions``, ``perceptions``), :class:`~connector.dispatches.GuideRef` (``dispatches``),
        :class:`~connector.persons.Person`, :class:`~connector.items.Product`, the service's message
        (``inventory``), :class:`~connector.sale_notes.SaleNoteRef`,
        :class:`~connector.quotations.QuotationRef`.
    """
