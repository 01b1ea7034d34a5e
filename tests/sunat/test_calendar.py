"""Lima's clock: the real time unless ``FACTURADOR_CLOCK`` fixes it (in this process and its children)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

import pytest

from sunat.calendar import CLOCK_VARIABLE, LIMA, peru_now, peru_today
from sunat.deadlines import summary_deadline


def test_the_real_clock_is_limas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CLOCK_VARIABLE, raising=False)
    before = dt.datetime.now(dt.UTC)
    now = peru_now()
    assert now.utcoffset() == dt.timedelta(hours=-5)
    assert before - dt.timedelta(seconds=1) <= now <= dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)


def test_a_fixed_clock_stands_at_its_instant_in_lima(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CLOCK_VARIABLE, "2027-04-30T23:30:00-05:00")
    assert peru_now() == dt.datetime(2027, 4, 30, 23, 30, tzinfo=LIMA) == peru_now()
    assert peru_today() == dt.date(2027, 4, 30)  # though it is already 1 May in UTC
    monkeypatch.setenv(CLOCK_VARIABLE, "2027-05-01T04:30:00+00:00")  # the same instant in UTC
    assert peru_today() == dt.date(2027, 4, 30) and peru_now().utcoffset() == dt.timedelta(hours=-5)
    monkeypatch.setenv(CLOCK_VARIABLE, "2028-01-01T00:30")  # no offset: Lima's
    assert peru_now() == dt.datetime(2028, 1, 1, 0, 30, tzinfo=LIMA)
    assert summary_deadline(peru_today() - dt.timedelta(days=7)) == peru_today()


@pytest.mark.parametrize("text", ["tomorrow", "2027-13-01", "31/12/2027 23:30"])
def test_a_clock_that_is_not_an_instant_is_a_clear_error(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CLOCK_VARIABLE, text)
    with pytest.raises(ValueError, match=f"{CLOCK_VARIABLE}=.*ISO 8601"):
        peru_now()


def test_the_fixed_clock_reaches_the_processes_a_test_starts(fixed_clock: dt.datetime) -> None:
    """``fixed_clock`` sets the variable: a child process (``facturador serve``, the dashboard) reads the
    same day, at each of the fixed instants."""
    done = subprocess.run(
        [sys.executable, "-c", "from sunat.calendar import peru_now; print(peru_now().isoformat())"],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ.copy(),
        timeout=60,
    )
    assert dt.datetime.fromisoformat(done.stdout.strip()) == fixed_clock


def test_the_tests_home_is_a_temporary_folder() -> None:
    """tests/conftest.py points HOME and the XDG folders away from the user's before any test runs."""
    home = os.environ["HOME"]
    assert os.path.basename(home).startswith("facturador-tests-home-")
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        assert os.environ[name].startswith(home + os.sep) and os.path.isdir(os.environ[name])
