"""The plugin host: one pluggy ``PluginManager`` per :class:`~connector.Client`, behind a
small typed facade (:class:`PluginHost`) so callers never use ``pm.hook.<name>(...)`` directly.

Registration order (:func:`make_plugin_manager`):

1. :data:`DEFAULT_PLUGINS`, the built-ins, by import path (``plugins.detraction``, ...);
2. ``plugins=``: modules, objects with hook implementations, or import paths;
3. installed plugins of the entry-point group ``facturador``, only when ``load_entrypoints=True``.
   The environment variable ``FACTURADOR_LOAD_PLUGINS`` restricts them: unset → all; ``""`` → none;
   ``"a,b"`` → the entry points (or distributions) named ``a`` and ``b``;
4. every ``*.py`` file of ``plugins_dir`` (sorted by name), each loaded as its own module.

Because each client gets a fresh manager, the plugins of two tenants never mix, and nothing is
registered at import time. ``check_pending()`` runs after registration, so a misspelt hook name in a
plugin fails fast.

Call order: every hook runs its implementations in the order above, ``@hookimpl(tryfirst=True)`` ones
first and ``trylast=True`` ones last (the host calls them one by one, so that
``facturador_prepare_payload`` is a pipeline and each implementation gets its own copy of the
arguments); lists from ``facturador_form_fields`` and ``facturador_validate_payload`` come back in that
order. An implementation marked ``@hookimpl(families=...)`` is called only for those families.
Hook wrappers (``wrapper=True`` / ``hookwrapper=True``) are not supported: registering one makes the
next hook call raise :class:`PluginError`.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import importlib.metadata
import importlib.util
import itertools
import logging
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pluggy

from connector import hookspecs
from connector.errors import FieldError
from connector.forms import FormField

__all__ = [
    "DEFAULT_PLUGINS",
    "ENTRYPOINT_GROUP",
    "LOAD_PLUGINS_ENV",
    "PluginError",
    "PluginHost",
    "PluginInfo",
    "make_plugin_manager",
]

logger = logging.getLogger("connector")

#: Built-in plugins, registered on every client by import path.
DEFAULT_PLUGINS: tuple[str, ...] = (
    "plugins.detraction",
    "plugins.instalments",
)
#: Entry-point group of third-party plugins: ``[project.entry-points.facturador]``.
ENTRYPOINT_GROUP = hookspecs.PROJECT
#: Restricts (comma list) or disables (empty) entry-point loading.
LOAD_PLUGINS_ENV = "FACTURADOR_LOAD_PLUGINS"

_local_counter = itertools.count(1)


class PluginError(RuntimeError):
    """A plugin broke the hook contract (mutated its input, returned the wrong type, ...)."""


@dataclass(frozen=True)
class PluginInfo:
    """A registered plugin: its name and the hooks it implements."""

    name: str
    hooks: tuple[str, ...]


class PluginHost:
    """Typed facade over one ``pluggy.PluginManager``. Get it from ``client.plugin_manager``."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm

    # -- registry ---------------------------------------------------------------------------------

    def register(self, plugin: object, name: str | None = None) -> str:
        """Register a module or object (or an import path) and return its name."""
        if isinstance(plugin, str):
            plugin = importlib.import_module(plugin)
        try:
            registered = self.pm.register(plugin, name=name)
        except ValueError as exc:  # already registered (pluggy's message lists every plugin: keep it short)
            raise PluginError(f"plugin {name or plugin!r} is already registered") from exc
        if registered is None:
            raise PluginError(f"plugin {name or plugin!r} is blocked")
        self.pm.check_pending()
        return registered

    def unregister(self, name: str) -> None:
        """Remove the plugin registered under ``name``."""
        self.pm.unregister(name=name)

    def list_plugins(self) -> list[PluginInfo]:
        """Registered plugins in registration order, with their hooks."""
        found = []
        for name, plugin in self.pm.list_name_plugin():
            callers = self.pm.get_hookcallers(plugin) or []
            found.append(PluginInfo(name=name, hooks=tuple(sorted(c.name for c in callers))))
        return found

    def _ordered(self, hook_name: str, family: str) -> list[Any]:
        """The implementations that serve ``family`` (see ``@hookimpl(families=...)``) in call order:
        ``tryfirst`` ones, registration order, ``trylast`` ones."""
        impls = getattr(self.pm.hook, hook_name).get_hookimpls()
        for impl in impls:
            if impl.hookwrapper or impl.wrapper:
                raise PluginError(
                    f"plugin {impl.plugin_name!r}: hook wrappers are not supported ({hook_name})"
                )
        impls = [
            i for i in impls if (served := hookspecs.families_served(i.function)) is None or family in served
        ]
        first = [i for i in impls if i.tryfirst]
        last = [i for i in impls if i.trylast]
        middle = [i for i in impls if not i.tryfirst and not i.trylast]
        return first + middle + last

    def _results(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """``(plugin name, result)`` of every implementation in call order, ``None`` results left out.
        Each implementation gets its own deep copy of the arguments."""
        results = []
        for impl in self._ordered(hook_name, kwargs["family"]):
            given = {key: copy.deepcopy(value) for key, value in kwargs.items()}
            result = impl.function(*[given[name] for name in impl.argnames])
            if result is not None:
                results.append((impl.plugin_name, result))
        return results

    # -- hooks ------------------------------------------------------------------------------------

    def form_fields(self, family: str, document_type: str | None = None) -> list[FormField]:
        """Extra form fields for ``family`` (and ``document_type``), built-ins first."""
        fields: list[FormField] = []
        for plugin, batch in self._results(
            "facturador_form_fields", family=family, document_type=document_type
        ):
            for item in batch:
                if not isinstance(item, FormField):
                    raise PluginError(
                        f"plugin {plugin!r}: facturador_form_fields returned {type(item).__name__}, "
                        "not FormField"
                    )
                fields.append(item)
        return fields

    def prepare_payload(
        self, family: str, payload: dict[str, Any], values: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Run the ``facturador_prepare_payload`` pipeline; return the final payload (a new dict when
        any plugin changed it; ``payload`` itself is never modified)."""
        current = payload
        for impl in self._ordered("facturador_prepare_payload", family):
            given = copy.deepcopy(current)
            kwargs = {"family": family, "payload": given, "values": copy.deepcopy(values or {})}
            result = impl.function(*[kwargs[name] for name in impl.argnames])
            if result is None:
                if given != current:
                    raise PluginError(
                        f"plugin {impl.plugin_name!r} changed the payload in place in "
                        "facturador_prepare_payload: return a new dict instead"
                    )
                continue
            if not isinstance(result, dict):
                raise PluginError(
                    f"plugin {impl.plugin_name!r}: facturador_prepare_payload must return a dict or None, "
                    f"not {type(result).__name__}"
                )
            current = result
        return current if current is payload else copy.deepcopy(current)

    def validate_payload(self, family: str, payload: dict[str, Any]) -> list[FieldError]:
        """Problems found by ``facturador_validate_payload`` implementations (``[]`` when none)."""
        problems: list[FieldError] = []
        for _plugin, batch in self._results("facturador_validate_payload", family=family, payload=payload):
            for item in batch:
                problems.append(item if isinstance(item, FieldError) else FieldError("", str(item)))
        return problems

    def issued(self, family: str, payload: dict[str, Any], result: object) -> None:
        """Call every ``facturador_issued`` implementation; their exceptions are logged, not raised."""
        for impl in self._ordered("facturador_issued", family):
            kwargs = {"family": family, "payload": copy.deepcopy(payload), "result": result}
            try:
                impl.function(*[kwargs[name] for name in impl.argnames])
            except Exception:
                logger.exception("plugin %r failed in facturador_issued (ignored)", impl.plugin_name)


def _entry_points() -> list[importlib.metadata.EntryPoint]:
    """Installed entry points of the ``facturador`` group (a function so tests can replace it)."""
    return list(importlib.metadata.entry_points(group=ENTRYPOINT_GROUP))


def _load_entrypoints(pm: pluggy.PluginManager) -> None:
    wanted_env = os.environ.get(LOAD_PLUGINS_ENV)
    wanted = None if wanted_env is None else {n.strip() for n in wanted_env.split(",") if n.strip()}
    if wanted is not None and not wanted:
        return
    for ep in _entry_points():
        dist = getattr(ep, "dist", None)
        dist_name = dist.metadata["Name"] if dist is not None else None
        if wanted is not None and ep.name not in wanted and dist_name not in wanted:
            continue
        if pm.get_plugin(ep.name) is not None or pm.is_blocked(ep.name):
            continue
        plugin = ep.load()
        if pm.is_registered(plugin):  # e.g. a distribution re-exporting a built-in
            continue
        pm.register(plugin, name=ep.name)


def _load_directory(pm: pluggy.PluginManager, directory: str | Path) -> None:
    folder = Path(directory)
    if not folder.is_dir():
        raise PluginError(f"plugins_dir {str(folder)!r} is not a directory")
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:10]
    for path in sorted(folder.glob("*.py")):
        if path.name == "__init__.py":
            continue
        name = f"facturador_local_plugins_{digest}_{next(_local_counter)}.{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:  # pragma: no cover - only for odd files
            raise PluginError(f"cannot load plugin file {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        pm.register(module, name=str(path))


def _as_plugin(plugin: object) -> object:
    return importlib.import_module(plugin) if isinstance(plugin, str) else plugin


def make_plugin_manager(
    plugins: Sequence[object] | Iterable[object] = (),
    *,
    load_entrypoints: bool = False,
    plugins_dir: str | Path | None = None,
) -> PluginHost:
    """A fresh plugin manager (wrapped in :class:`PluginHost`) with the built-ins and the given plugins.

    :param plugins: modules or objects with ``@hookimpl`` functions, or import paths of modules.
    :param load_entrypoints: also load installed plugins of the ``facturador`` entry-point group
        (restricted by ``FACTURADOR_LOAD_PLUGINS``).
    :param plugins_dir: a folder whose ``*.py`` files are loaded as plugins (tenant-local plugins).
    """
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for path in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(path), name=path)
    for plugin in plugins:
        obj = _as_plugin(plugin)
        if pm.is_registered(obj):
            continue
        pm.register(obj)
    if load_entrypoints:
        _load_entrypoints(pm)
    if plugins_dir is not None:
        _load_directory(pm, plugins_dir)
    pm.check_pending()
    return PluginHost(pm)
