"""The dependency rule between the seven top-level packages, read from their imports with ``ast``.

``sunat`` (the tax domain) imports none of the others; ``connector`` only ``sunat``; ``analysis`` (the
analyst's figures) the connector and ``sunat``; ``plugins`` the connector and ``sunat``; ``dashboard``
the analysis, the connector, the plugins and ``sunat``; ``demo`` (the demo's data, issued through the
connector) the connector, the plugins and ``sunat``; the service (``facturador``) only ``sunat`` - except
its composition point, ``facturador/cli.py``, which starts the dashboard and seeds the demo. No arrow runs
back up. Every ``import`` counts: at the top, inside functions, under ``if
TYPE_CHECKING:``; relative imports are resolved to their package. (Loading plugins by import path at run
time is not an import.)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Package -> the other top-level packages it may import.
ALLOWED: dict[str, frozenset[str]] = {
    "sunat": frozenset(),
    "connector": frozenset({"sunat"}),
    "analysis": frozenset({"connector", "sunat"}),
    "plugins": frozenset({"connector", "sunat"}),
    "dashboard": frozenset({"analysis", "connector", "plugins", "sunat"}),
    "demo": frozenset({"connector", "plugins", "sunat"}),
    "facturador": frozenset({"sunat"}),
}
#: What a relative import that climbs above its top-level package imports.
ABOVE = "(above the top-level package)"
#: Modules that may import any of the packages: the composition point of the CLI.
COMPOSITION = {
    "facturador/cli.py": frozenset(ALLOWED),
}


@dataclass(frozen=True)
class Crossing:
    """One import that breaks the rule."""

    path: str
    line: int
    statement: str
    importer: str
    imported: str

    def __str__(self) -> str:
        allowed = ", ".join(sorted(COMPOSITION.get(self.path, ALLOWED[self.importer]))) or "none of them"
        return (
            f"{self.path}:{self.line}: `{self.statement}`: {self.importer} imports {self.imported} "
            f"(it may import {allowed})"
        )


def imports(tree: ast.AST, module: tuple[str, ...], is_package: bool) -> Iterator[tuple[int, str, str]]:
    """``(line, imported module, statement)`` for every import in ``tree``, relative ones resolved.

    ``module`` is the dotted name of the file as parts (``("facturador", "ubl", "xsd")``); a relative
    import that climbs above the top-level package is reported as importing :data:`ABOVE`.
    """
    package = module if is_package else module[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, f"import {alias.name}"
        elif isinstance(node, ast.ImportFrom):
            names = ", ".join(alias.name for alias in node.names)
            statement = f"from {'.' * node.level}{node.module or ''} import {names}"
            if node.level == 0:
                yield node.lineno, node.module or "", statement
                continue
            kept = len(package) - (node.level - 1)
            if kept < 1:
                yield node.lineno, ABOVE, statement
                continue
            yield node.lineno, ".".join((*package[:kept], *([node.module] if node.module else []))), statement


def crossings(root: Path) -> list[Crossing]:
    """Every import of a module of the packages under ``root`` that the rule does not allow."""
    found = []
    for importer, allowed_packages in ALLOWED.items():
        for path in sorted((root / importer).rglob("*.py")):
            relative = path.relative_to(root)
            parts = relative.with_suffix("").parts
            is_package = parts[-1] == "__init__"
            module = parts[:-1] if is_package else parts
            allowed = COMPOSITION.get(relative.as_posix(), allowed_packages)
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for line, imported, statement in imports(tree, module, is_package):
                top = imported.split(".")[0]
                if top == ABOVE or (top in ALLOWED and top != importer and top not in allowed):
                    found.append(Crossing(relative.as_posix(), line, statement, importer, top))
    return found


def test_no_import_crosses_the_rule() -> None:
    assert all((ROOT / package).is_dir() for package in ALLOWED)
    found = crossings(ROOT)
    assert not found, "imports that cross the dependency rule:\n" + "\n".join(map(str, found))


def plant(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checker_catches_every_kind_of_import(tmp_path: Path) -> None:
    plant(
        tmp_path,
        {
            "sunat/__init__.py": "import connector\n",
            "sunat/totals.py": "import json\nfrom decimal import Decimal\nimport sunatx\n",
            "connector/client.py": "def later():\n    from plugins.detraction import hookimpl\n",
            "facturador/__init__.py": "",
            "facturador/api/__init__.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from dashboard import app\n"
            ),
            "facturador/api/routes.py": (
                "from . import errors\nfrom ..ubl import xsd\nfrom ... import outside\n"
            ),
            "facturador/cli.py": "from connector import Client\nimport dashboard.app\nimport plugins\n",
            "demo/seeding.py": (
                "from plugins import detraction\nfrom connector import Client\nimport facturador.app\n"
            ),
            "facturador/context.py": "import sunat.calendar, connector.cache\n",
            "plugins/detraction.py": (
                "from connector import hookimpl\nfrom sunat import rates\nfrom .base import x\n"
            ),
            "dashboard/app.py": "import streamlit\nfrom connector import Client\nimport facturador.app\n",
        },
    )
    found = crossings(tmp_path)
    assert [(c.path, c.line, c.imported) for c in found] == [
        ("sunat/__init__.py", 1, "connector"),
        ("connector/client.py", 2, "plugins"),
        ("dashboard/app.py", 3, "facturador"),
        ("demo/seeding.py", 3, "facturador"),
        ("facturador/api/__init__.py", 3, "dashboard"),
        ("facturador/api/routes.py", 3, ABOVE),
        ("facturador/context.py", 1, "connector"),
    ]
    assert str(found[1]) == (
        "connector/client.py:2: `from plugins.detraction import hookimpl`: connector imports plugins "
        "(it may import sunat)"
    )
    assert str(found[0]).endswith("sunat imports connector (it may import none of them)")


def test_relative_imports_resolve_to_their_package() -> None:
    tree = ast.parse("from . import a\nfrom ..render import pdf\nfrom .. import model\n")
    assert [name for _, name, _ in imports(tree, ("facturador", "ubl", "xsd"), False)] == [
        "facturador.ubl",
        "facturador.render",
        "facturador",
    ]
    assert [name for _, name, _ in imports(tree, ("facturador", "ubl"), True)] == [
        "facturador.ubl",
        "facturador.render",
        "facturador",
    ]


# -- inside the service ------------------------------------------------------------------------------

#: The service's parts from the bottom up: a part may import its own modules and those of lower ranks,
#: never a higher rank or another part of its own rank. The issued documents' values sit below the code
#: that consumes them; the store knows nothing of the context that holds it; the CLI composes everything.
SERVICE_RANKS: dict[str, int] = {
    "issued": 0,
    "config": 0,
    "errors": 0,
    "logs": 0,
    "ubl": 1,
    "render": 1,
    "authority": 2,
    "store": 3,
    "context": 4,
    "domain": 5,
    "api": 6,
    "app": 7,
    "cli": 8,
}


def _service_part(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "facturador" and len(parts) > 1 else None


def service_crossings(root: Path) -> list[str]:
    """Every import inside ``facturador/`` that runs against :data:`SERVICE_RANKS`."""
    found = []
    for path in sorted((root / "facturador").rglob("*.py")):
        relative = path.relative_to(root)
        parts = relative.with_suffix("").parts
        is_package = parts[-1] == "__init__"
        module = parts[:-1] if is_package else parts
        importer = _service_part(".".join(module))
        if importer is None:  # facturador/__init__.py
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, imported, statement in imports(tree, module, is_package):
            if imported == "facturador":  # from facturador import issued / from .. import issued
                targets = [f"facturador.{name}" for name in statement.split(" import ", 1)[1].split(", ")]
            else:
                targets = [imported]
            for target in targets:
                part = _service_part(target)
                if part is None or part == importer:
                    continue
                if part not in SERVICE_RANKS or SERVICE_RANKS[part] >= SERVICE_RANKS[importer]:
                    found.append(f"{relative.as_posix()}:{line}: `{statement}`: {importer} imports {part}")
    return found


def test_service_parts_import_downwards_only() -> None:
    assert {p.stem for p in (ROOT / "facturador").iterdir() if p.stem != "__init__"} <= {
        *SERVICE_RANKS,
        "py",  # py.typed
        "__pycache__",
    }
    found = service_crossings(ROOT)
    assert not found, "imports against the service's layers:\n" + "\n".join(found)


def test_the_service_checker_catches_upward_and_sideways_imports(tmp_path: Path) -> None:
    plant(
        tmp_path,
        {
            "facturador/__init__.py": "",
            "facturador/issued.py": "from sunat import totals\n",
            "facturador/ubl/invoice.py": (
                "from facturador.issued import Line\nfrom facturador.render import pdf\n"
            ),
            "facturador/store/tickets.py": "from facturador.context import ServiceContext\n",
            "facturador/domain/documents.py": "from facturador import context, issued\nfrom ..api import x\n",
            "facturador/cli.py": "from facturador.app import create_app\n",
        },
    )
    assert service_crossings(tmp_path) == [
        "facturador/domain/documents.py:2: `from ..api import x`: domain imports api",
        "facturador/store/tickets.py:1: `from facturador.context import ServiceContext`: "
        "store imports context",
        "facturador/ubl/invoice.py:2: `from facturador.render import pdf`: ubl imports render",
    ]


# -- no circles between modules ----------------------------------------------------------------------


def module_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the packages it imports (``from pkg import submodule`` is the
    submodule; a package's ``__init__`` is only counted when a name is taken from it)."""
    files: dict[str, tuple[Path, tuple[str, ...], bool]] = {}
    for package in ALLOWED:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            is_package = parts[-1] == "__init__"
            module = parts[:-1] if is_package else parts
            files[".".join(module)] = (path, module, is_package)
    graph: dict[str, set[str]] = {}
    for name, (path, module, is_package) in files.items():
        edges = set()
        for _, imported, statement in imports(
            ast.parse(path.read_text(encoding="utf-8")), module, is_package
        ):
            targets = [imported]
            if statement.startswith("from "):
                names = [n.split(" as ")[0] for n in statement.split(" import ", 1)[1].split(", ")]
                targets = [f"{imported}.{n}" if f"{imported}.{n}" in files else imported for n in names]
            edges.update(t for t in targets if t in files and t != name)
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_modules_import_each_other() -> None:
    found = circles(module_graph(ROOT))
    assert not found, "modules that import each other (directly or around a circle):\n" + "\n".join(
        " <-> ".join(group) for group in found
    )


def test_the_circle_finder_sees_a_lazy_circle(tmp_path: Path) -> None:
    plant(
        tmp_path,
        {
            "connector/__init__.py": "from connector.client import Client\n",
            "connector/client.py": "from connector import models\n",
            "connector/models.py": "def frame():\n    from connector.frames import build\n",
            "connector/frames.py": "from connector.models import COLUMNS\n",
            "connector/errors.py": "",
        },
    )
    assert circles(module_graph(tmp_path)) == [["connector.frames", "connector.models"]]
