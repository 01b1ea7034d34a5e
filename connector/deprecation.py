"""Old names kept for their callers: each use warns (:class:`DeprecationWarning`) and says the new one.

:func:`deprecated` marks a function or method; :func:`moved_module` makes a module an alias of the one
its contents moved to (``connector.sales`` of :mod:`analysis.sales`). They go in a later release.
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, TypeVar

__all__ = ["deprecated", "moved_module", "warn"]

F = TypeVar("F", bound=Callable[..., Any])


def warn(old: str, new: str) -> None:
    """Warn that ``old`` is deprecated and ``new`` replaces it, pointing at the caller's line."""
    warnings.warn(f"{old} is deprecated: use {new}", DeprecationWarning, stacklevel=_caller())


def _caller() -> int:
    """The stack level of the first frame outside this module and the import machinery."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and (
        frame.f_code.co_filename == __file__ or frame.f_code.co_filename.startswith("<frozen importlib")
    ):
        level, frame = level + 1, frame.f_back  # type: ignore[assignment]
    return level


def deprecated(old: str, new: str) -> Callable[[F], F]:
    """Mark ``function`` (called ``old`` by its users) as replaced by ``new``: each call warns first."""

    def mark(function: F) -> F:
        @functools.wraps(function)
        def replaced(*args: Any, **kwargs: Any) -> Any:
            warn(old, new)
            return function(*args, **kwargs)

        replaced.__doc__ = f"Deprecated: use {new}."
        return replaced  # type: ignore[return-value]

    return mark


def moved_module(
    old: str, *homes: ModuleType, renamed: Mapping[str, str] | None = None
) -> Callable[[str], Any]:
    """The ``__getattr__`` of module ``old``, whose contents moved to ``homes``: every name taken from
    it warns and comes from the first home that has it (under its new name when ``renamed``)."""
    renames = dict(renamed or {})

    def __getattr__(name: str) -> Any:
        if name == "__all__":
            warn(old, " or ".join(home.__name__ for home in homes))
            return [n for home in homes for n in getattr(home, "__all__", ())] + list(renames)
        if name.startswith("__"):
            raise AttributeError(name)
        wanted = renames.get(name, name)
        owners = [h for h in homes if wanted in getattr(h, "__all__", ())] or [
            h for h in homes if hasattr(h, wanted)
        ]
        for home in owners[:1]:
            warn(f"{old}.{name}", f"{home.__name__}.{wanted}")
            return getattr(home, wanted)
        raise AttributeError(f"module {old!r} has no attribute {name!r}")

    return __getattr__
