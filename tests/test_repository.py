"""The repository stands on its own: only tests/reference.py names the reference folder beside it."""

from __future__ import annotations

from pathlib import Path

from tests import reference

TESTS = Path(__file__).resolve().parent


def naming_the_folder(root: Path) -> list[str]:
    """``file:line: text`` of every line, in the text files under ``root`` but tests/reference.py, that
    names the reference folder."""
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path == Path(reference.__file__).resolve():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if reference.NAMING.search(line):
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


def test_only_the_reference_helper_names_the_folder() -> None:
    found = naming_the_folder(TESTS)
    assert found == [], "reach the reference folder through tests/reference.py only:\n" + "\n".join(found)


def test_the_check_finds_each_way_of_naming_it(tmp_path: Path) -> None:
    name = reference.NAME
    lines = [
        f'EXAMPLES = ROOT.parent / "{name}" / "examples"',
        f"XSD = Path('/work/{name}/xsd')",
        f'data = open("../{name}/examples/item.json")',
        f"# reads {name}/examples/sunat",
    ]
    for index, line in enumerate(lines):
        (tmp_path / f"test_{index}.py").write_text(f"import json\n{line}\n", encoding="utf-8")
    (tmp_path / "fine.py").write_text(
        f'"""Fixtures {name} by the API tests: {name}_path, requires_{name}."""\n'
    )
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    assert naming_the_folder(tmp_path) == [f"test_{i}.py:2: {line}" for i, line in enumerate(lines)]


def postgres_runs(script: Path) -> list[str]:
    """The test paths ``scripts/test.sh`` runs again on PostgreSQL when no argument narrows it."""
    for line in script.read_text(encoding="utf-8").splitlines():
        if "PG_TESTS=(" in line and "||" in line:
            return line.split("PG_TESTS=(", 1)[1].rstrip(")").split()
    raise AssertionError(f"{script} names no default PostgreSQL run")


def test_every_test_that_needs_postgresql_runs_on_it() -> None:
    """A test that runs only when FACTURADOR_TEST_DATABASE_URL is set (say, the migration where pg_trgm is
    refused) must lie in a path the PostgreSQL run of scripts/test.sh (and so CI) covers."""
    root = TESTS.parent
    covered = [root / path for path in postgres_runs(root / "scripts" / "test.sh")]
    needing = [
        path
        for path in sorted(TESTS.rglob("test_*.py"))
        if path != Path(__file__).resolve()
        and "FACTURADOR_TEST_DATABASE_URL" in path.read_text(encoding="utf-8")
    ]
    assert needing, "no test reads FACTURADOR_TEST_DATABASE_URL: the check looks at nothing"
    left_out = [
        str(path.relative_to(root)) for path in needing if not any(path.is_relative_to(c) for c in covered)
    ]
    assert left_out == [], "never run on PostgreSQL by scripts/test.sh: " + ", ".join(left_out)
