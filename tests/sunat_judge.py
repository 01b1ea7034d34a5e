"""SUNAT's own validation stylesheets as a judge of the XML the service makes (tests only).

The reference folder (``tests/reference.py``) holds SUNAT's published ``ValidaExprReg*.xsl`` with a
runner built on SaxonC-HE; this module loads that runner once per test session (the adapted runtime copy
is built under the session's temporary folder, and each stylesheet is compiled once and reused) and
answers, for one XML as SUNAT would receive it, which rules reject it and which observe it. Tests that
use it are skipped with a reason when the folder (or ``saxonche``) is absent, and fail under
``FACTURADOR_REQUIRE_SHARED=1`` as in CI.
"""

from __future__ import annotations

import atexit
import importlib.util
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sunat.calendar import peru_today
from tests import reference


@dataclass(frozen=True)
class Finding:
    """One rule of a stylesheet that fired: its code, SUNAT's text and the stylesheet's own detail."""

    code: str
    text: str
    detail: str


@dataclass(frozen=True)
class Verdict:
    """SUNAT's answer to one document: every rejection (the first is the CDR's code) and observation."""

    name: str
    stylesheet: str
    rejections: tuple[Finding, ...]
    observations: tuple[Finding, ...]

    @property
    def first_rejection(self) -> str | None:
        return self.rejections[0].code if self.rejections else None

    @property
    def observation_codes(self) -> tuple[str, ...]:
        """The observations' codes, each once, in the order they fired."""
        return tuple(dict.fromkeys(f.code for f in self.observations))

    @property
    def answer(self) -> tuple[str, str | None]:
        """("rejected", code), ("observed", first code) or ("accepted", None): what a CDR would say."""
        if self.rejections:
            return "rejected", self.rejections[0].code
        if self.observations:
            return "observed", self.observations[0].code
        return "accepted", None

    def describe(self) -> str:
        lines = [f"{self.name} [{self.stylesheet}]"]
        for kind, findings in (("ERR", self.rejections), ("OBS", self.observations)):
            lines += [f"  {kind} {f.code} {f.text} | {f.detail}" for f in findings]
        return "\n".join(lines)


class Judge:
    """Runs SUNAT's stylesheets (through the reference folder's runner) on XML bytes."""

    def __init__(self, runner_module: ModuleType, rules_dir: Path, work: Path) -> None:
        self._module = runner_module
        xsl_dir = rules_dir / "contenido"
        runtime = runner_module.build_runtime(xsl_dir, work / "datapower", "datapower")
        codes = runner_module.load_codes([xsl_dir / "commons/cpe/catalogo/CatalogoErrores.xml"])
        # "all": every rule that fires is listed (the first rejection is still SUNAT's answer); the
        # schema is checked by the tests themselves (tests/helpers.assert_schema_valid)
        self._runner = runner_module.Runner(runtime, codes, "all", None, None)
        self._folder = work / "documents"
        self._folder.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()  # one Saxon processor: one transformation at a time

    def __call__(self, xml: bytes, sent_as: str, today: str | None = None) -> Verdict:
        """SUNAT's answer to ``xml`` received as ``sent_as`` (``RUC-TT-SERIE-NUMERO`` or
        ``RUC-RC-YYYYMMDD-N``, with or without ``.xml``); ``today`` (YYYY-MM-DD) for the date rules."""
        name = sent_as if sent_as.endswith(".xml") else f"{sent_as}.xml"
        with self._lock:
            path = self._folder / name
            path.write_bytes(xml)
            self._runner.today = today or peru_today().isoformat()  # our clock's day, not the machine's
            try:
                result: Any = self._runner.run(path, name)
            finally:
                path.unlink(missing_ok=True)
        if result.runtime_error:
            raise AssertionError(f"SUNAT's stylesheet failed on {name}: {result.runtime_error}")

        def findings(raw: list[Any]) -> tuple[Finding, ...]:
            return tuple(Finding(f.code.lstrip("0") or "0", f.text, f.detail) for f in raw)

        return Verdict(name, result.stylesheet, findings(result.rejections), findings(result.observations))


_JUDGE: Judge | None = None


def load_judge() -> Judge:
    """The session's judge; skips the calling test without the reference folder or ``saxonche``."""
    global _JUDGE
    if _JUDGE is None:
        rules_dir = reference.shared_path("sunat-rules")
        if importlib.util.find_spec("saxonche") is None:
            if reference.required():
                pytest.fail("FACTURADOR_REQUIRE_SHARED=1 but saxonche is not installed", pytrace=False)
            pytest.skip("SUNAT's stylesheets need saxonche (pip install saxonche, extra sunat-rules)")
        spec = importlib.util.spec_from_file_location("sunat_run_xsl", rules_dir / "run_xsl.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        work = Path(tempfile.mkdtemp(prefix="sunat-xsl-"))
        atexit.register(shutil.rmtree, work, ignore_errors=True)
        _JUDGE = Judge(module, rules_dir, work)
    return _JUDGE
