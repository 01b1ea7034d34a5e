"""The heavy lane and its shared runs (facturador/api/heavy.py), driven directly: bounded heavy work
beside light work, one run per key for concurrent requests, a run that stops only when every request
waiting for it has gone, and one run per key across worker processes."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from facturador.api.heavy import HEAVY_LINES, ClientGone, HeavyWork, line_count

WAIT = 10.0  # seconds a step may take on a loaded machine before the test calls it stuck


class Work:
    """A heavy job that runs until released (or told to stop), counting its runs."""

    def __init__(self) -> None:
        self.runs = 0
        self.running = threading.Event()
        self.release = threading.Event()
        self.stopped = 0

    def __call__(self, abandoned: Callable[[], bool]) -> str:
        self.runs += 1
        self.running.set()
        deadline = time.monotonic() + WAIT
        while not self.release.wait(0.01):
            if abandoned():
                self.stopped += 1
                raise RuntimeError("nobody waits for this run any more")
            assert time.monotonic() < deadline, "never released"
        return f"result of run {self.runs}"


async def until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.01)


def test_heavy_work_runs_one_at_a_time_beside_light_work(tmp_path: Path) -> None:
    heavy = HeavyWork(tmp_path)
    first, second = threading.Event(), threading.Event()
    started: list[str] = []

    def job(name: str, release: threading.Event) -> str:
        started.append(name)
        assert release.wait(WAIT)
        return name

    async def scenario() -> None:
        big = asyncio.ensure_future(heavy.by_lines(HEAVY_LINES + 1, job, "first", first))
        await until(lambda: started == ["first"])
        queued = asyncio.ensure_future(heavy.by_lines(999, job, "second", second))
        # light work goes on while the heavy slot is taken
        assert await heavy.by_lines(HEAVY_LINES, lambda: "light") == "light"
        await asyncio.sleep(0.1)
        assert started == ["first"]  # the second heavy job waits for the slot
        first.set()
        assert await big == "first"
        second.set()
        assert await queued == "second"
        assert started == ["first", "second"]

    asyncio.run(scenario())


def test_line_count_reads_the_items_of_a_body() -> None:
    assert line_count({"items": [{}] * 3}) == 3
    assert [line_count(body) for body in ({}, {"items": None}, {"items": "x"}, [], "x")] == [0] * 5


def test_concurrent_requests_share_one_run(tmp_path: Path) -> None:
    heavy, work = HeavyWork(tmp_path), Work()

    async def scenario() -> None:
        waiting = [asyncio.ensure_future(heavy.shared("k", work, asyncio.Event())) for _ in range(5)]
        await until(work.running.is_set)
        late = asyncio.ensure_future(heavy.shared("k", work, asyncio.Event()))
        work.release.set()
        assert await asyncio.gather(*waiting, late) == ["result of run 1"] * 6
        assert work.runs == 1
        # a request after the run ended starts another (keeping results is the work's business)
        assert await heavy.shared("k", work, asyncio.Event()) == "result of run 2"

    asyncio.run(scenario())


def test_a_run_goes_on_while_someone_waits_and_stops_when_nobody_does(tmp_path: Path) -> None:
    heavy, work = HeavyWork(tmp_path), Work()

    async def scenario() -> None:
        first_gone, second_gone = asyncio.Event(), asyncio.Event()
        first = asyncio.ensure_future(heavy.shared("k", work, first_gone))
        second = asyncio.ensure_future(heavy.shared("k", work, second_gone))
        await until(work.running.is_set)
        first_gone.set()
        with pytest.raises(ClientGone):
            await first
        await asyncio.sleep(0.1)
        assert work.stopped == 0  # the second request still waits for it
        second_gone.set()
        with pytest.raises(ClientGone):
            await second
        await until(lambda: work.stopped == 1)
        # the next request starts a run of its own, which ends
        work.release.set()
        assert await heavy.shared("k", work, asyncio.Event()) == "result of run 2"

    asyncio.run(scenario())


def test_a_request_that_comes_as_its_run_stops_gets_a_new_run(tmp_path: Path) -> None:
    heavy = HeavyWork(tmp_path)
    runs: list[int] = []

    def work(abandoned: Callable[[], bool]) -> str:
        runs.append(len(runs) + 1)
        if len(runs) == 1:
            deadline = time.monotonic() + WAIT
            while not abandoned():  # told to stop: the request that started it left
                assert time.monotonic() < deadline
                time.sleep(0.01)
            time.sleep(0.2)  # ... and a new request comes while it winds down
            raise RuntimeError("stopped")
        return "fresh"

    async def scenario() -> None:
        gone = asyncio.Event()
        first = asyncio.ensure_future(heavy.shared("k", work, gone))
        await until(lambda: runs == [1])
        gone.set()
        with pytest.raises(ClientGone):
            await first
        await asyncio.sleep(0.05)
        assert await heavy.shared("k", work, asyncio.Event()) == "fresh"
        assert runs == [1, 2]

    asyncio.run(scenario())


def test_a_run_is_shared_across_worker_processes(tmp_path: Path) -> None:
    """Two lanes on one lock directory (each takes the lock file with its own open file description, as
    two worker processes do): the second waits for the first's run and then finds its stored result."""
    stored: dict[str, str] = {}
    renders: list[str] = []

    def work(name: str) -> Callable[[Callable[[], bool]], str]:
        def render(_abandoned: Callable[[], bool]) -> str:
            if "k" in stored:
                return stored["k"]
            renders.append(name)
            time.sleep(0.3)
            stored["k"] = f"rendered by {name}"
            return stored["k"]

        return render

    one, two = HeavyWork(tmp_path / "locks"), HeavyWork(tmp_path / "locks")

    async def scenario() -> list[str]:
        return list(
            await asyncio.gather(
                one.shared("k", work("one"), asyncio.Event()),
                two.shared("k", work("two"), asyncio.Event()),
            )
        )

    results = asyncio.run(scenario())
    assert len(renders) == 1
    assert results == [f"rendered by {renders[0]}"] * 2
    assert (tmp_path / "locks").stat().st_mode & 0o777 == 0o700
