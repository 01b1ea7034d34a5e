"""The one way into the read-only reference folder beside the project (SUNAT's published files).

Development machines and CI keep a folder with what only SUNAT and public projects publish — real
signed documents, CDR zips, SUNAT's code catalogue ``CodeErrors.xml``, the real public request bodies
of Facturador PRO, SUNAT's own schemas and validation stylesheets — at ``<repository>/../shared``
(or wherever ``FACTURADOR_SHARED`` points). A ``git clone`` does not have it, so every test that reads
it goes through this module and is skipped, with a reason that says so, when it is absent. CI sets
``FACTURADOR_REQUIRE_SHARED=1``: there an absent folder fails those tests instead.

Three ways to use it:

- ``shared_path("examples", "sunat", "cdrBaja.zip")`` inside a test or fixture: the path, or the test
  is skipped (failed under ``FACTURADOR_REQUIRE_SHARED=1``);
- ``@pytest.mark.requires_shared`` (or ``pytestmark = pytest.mark.requires_shared``): the same for a
  whole test or module, decided before it runs (``tests/conftest.py`` applies it);
- ``shared_files("examples", "documents_*.json")`` in ``@pytest.mark.parametrize``: one parameter per
  file, or one placeholder parameter carrying the marker when the folder is absent, so collection
  never fails.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

#: The repository's root (this file is ``tests/reference.py``).
REPOSITORY = Path(__file__).resolve().parents[1]
#: The folder's name beside the repository, and where it is looked for.
NAME = "shared"
FOLDER = Path(os.environ.get("FACTURADOR_SHARED") or REPOSITORY.parent / NAME)
#: How a file names the folder: ``../shared``, ``"shared"`` as a path component, or ``shared/`` in a path.
#: No test file but this one may (``tests/test_repository.py`` checks).
NAMING = re.compile(rf"""\.\./{NAME}|["']{NAME}["']|(?<![\w.-]){NAME}/""")
#: Why a test that needs the folder did not run.
REASON = f"needs ../shared (SUNAT's published files) at {FOLDER}; CI has it"
#: The marker name (registered in pyproject.toml).
MARKER = "requires_shared"
requires_shared = getattr(pytest.mark, MARKER)


def available() -> bool:
    """True when the reference folder is there."""
    return FOLDER.is_dir()


def required() -> bool:
    """True when an absent folder is a failure (``FACTURADOR_REQUIRE_SHARED=1``, as in CI)."""
    return os.environ.get("FACTURADOR_REQUIRE_SHARED", "") == "1"


def missing() -> None:
    """Skip the running test because the folder is absent, or fail it when the folder is required."""
    if required():
        pytest.fail(f"FACTURADOR_REQUIRE_SHARED=1 but {REASON}", pytrace=False)
    pytest.skip(REASON)


def shared_path(*parts: str) -> Path:
    """The path of ``parts`` inside the folder; skips the calling test when the folder is absent.

    A folder that is there but lacks the file is a failure: the test names something SUNAT's set has.
    """
    if not available():
        missing()
    path = FOLDER.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"{path} is missing from the reference folder", pytrace=False)
    return path


def shared_files(*parts: str, pattern: str = "*", where: Callable[[Path], bool] | None = None) -> list[Any]:
    """Parameters for ``parametrize``: each file of ``parts`` matching ``pattern`` (and ``where``), by name.

    When the folder is absent there is one parameter, ``None``, marked ``requires_shared``: the test
    is reported as skipped (or failed when required) rather than breaking collection.
    """
    if not available():
        return [pytest.param(None, id="shared-absent", marks=requires_shared)]
    paths = sorted(FOLDER.joinpath(*parts).glob(pattern))
    return [pytest.param(path, id=path.name) for path in paths if where is None or where(path)]


def apply_marker(item: pytest.Item) -> None:
    """Before a test runs: skip (or fail) it when it carries ``requires_shared`` and the folder is absent."""
    if item.get_closest_marker(MARKER) is not None and not available():
        missing()
