"""Frozen dataclasses that are cheap to make: :func:`one_store_init`.

A frozen dataclass's generated ``__init__`` stores each field with its own ``object.__setattr__`` call
(frozen classes forbid ``self.x = ...``): ~0.2 µs a field, 6 µs for a 29-field document line, made ten
times per document and again by every ``dataclasses.replace``. The values stay frozen either way; only
how ``__init__`` stores them differs. Used by the service's issued values (``facturador.issued``) and by
the totals of :mod:`sunat.totals`, made for every document checked.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["one_store_init"]

_C = TypeVar("_C", bound=type)


def one_store_init(cls: _C) -> _C:
    """Give the frozen dataclass ``cls`` an ``__init__`` that stores every field at once in the instance's
    ``__dict__`` (same parameters, defaults and order as the generated one, which it replaces). The dict
    is a copy of one holding every field's name, filled key by key: a display of a dict of more than 15
    entries is built growing, and merging it into ``__dict__`` copies it again (a Line's: ~15k instructions
    against ~10k).

    For plain frozen dataclasses only: no ``__slots__``, ``__post_init__``, init-only or keyword-only
    fields, or ``init=False`` fields (``TypeError`` otherwise); field defaults and default factories are
    kept (a factory is called on each ``__init__`` that does not get the field).
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass")
    if "__slots__" in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has __slots__ or __post_init__: keep its generated __init__")
    namespace: dict[str, Any] = {"MISSING": dataclasses.MISSING, "__set": object.__setattr__}
    arguments, stores, factories = [], [], []
    for index, declared in enumerate(dataclasses.fields(cls)):
        if not declared.init or declared.kw_only:
            raise TypeError(f"{cls.__name__}.{declared.name}: init=False or keyword-only field")
        name = declared.name
        if declared.default is not dataclasses.MISSING:
            namespace[f"D{index}"] = declared.default
            arguments.append(f"{name}=D{index}")
        elif declared.default_factory is not dataclasses.MISSING:
            namespace[f"F{index}"] = declared.default_factory
            arguments.append(f"{name}=MISSING")
            factories.append(f"    if {name} is MISSING:\n        {name} = F{index}()")
        else:
            arguments.append(name)
        stores.append(f"    __values[{name!r}] = {name}")
    namespace["__TEMPLATE"] = dict.fromkeys(declared.name for declared in dataclasses.fields(cls))
    source = "\n".join(
        [
            f"def __init__(self, {', '.join(arguments)}):",
            *factories,
            "    __values = __TEMPLATE.copy()",
            *stores,
            "    __set(self, '__dict__', __values)",
        ]
    )
    exec(compile(source, f"<__init__ of {cls.__qualname__}>", "exec"), namespace)  # noqa: S102
    init = namespace["__init__"]
    generated = cls.__init__  # type: ignore[misc]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = generated.__doc__
    init.__annotations__ = dict(getattr(generated, "__annotations__", {}))
    cls.__init__ = init  # type: ignore[misc]
    return cls
