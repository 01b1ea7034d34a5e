"""The benchmarks start as the README runs them (``python benchmarks/NAME.py``): a script whose name
shadowed a package, or an import that moved, shows up here rather than in the next measurement."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.mark.parametrize("script", sorted(p.name for p in BENCHMARKS.glob("*.py")))
def test_benchmark_starts(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
