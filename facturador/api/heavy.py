"""Heavy work (a big document's XML, a PDF) runs off the event loop, a bounded lane of its own, and once
for all the requests that want the same result.

The event loop reads requests and writes answers; whatever computes or touches the database runs in a
worker thread. Light work (a one-line factura, a list, a file already stored) runs in the shared thread
pool (:func:`light`). Heavy work runs in a lane of its own (:meth:`HeavyWork.run`): at most
:data:`HEAVY_SLOTS` at a time in a worker process. Python runs one thread at a time, so more heavy
threads would not end sooner; they would only take turns with each other and with the light requests,
which would then wait longer. With one slot, big documents queue behind each other and small requests
keep their pace (``facturador serve --workers N`` gives N lanes). A worker hands the GIL over more often
than Python's default (:data:`GIL_SWITCH_SECONDS`), so that a light request is not kept waiting by a
heavy thread.

Requests for the same result (the PDF of one document in one format) share one run of the work
(:meth:`HeavyWork.shared`), in this process and across the worker processes (a lock file in the data
directory): later requests wait for the run under way instead of starting another. The run is told to
stop only when every request waiting for it has gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import os
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

T = TypeVar("T")

#: A document with more lines than this is heavy work: building, checking and signing it costs ~2 ms of
#: CPU a line here, so above this it takes more than a tenth of a second.
HEAVY_LINES = 50
#: Heavy jobs running at once in one worker process (see the module's docstring).
HEAVY_SLOTS = 1
#: How long a thread keeps the GIL while another waits for it (CPython's default: 5 ms). A light
#: request gives the GIL up at every database call and socket read, and waits up to this long to get it
#: back from a heavy thread: at 1 ms small requests beside big ones answered ~35 % sooner (p50, both
#: stores, benchmarks/busy_tenant.py). Each ``facturador serve`` worker sets it (facturador.app).
GIL_SWITCH_SECONDS = 0.001
#: Lock files that order the worker processes' shared runs (a run takes the one its key falls on).
LOCK_STRIPES = 256
#: How often a shared run waiting for another process's run of the same key asks again.
LOCK_POLL_SECONDS = 0.05


class ClientGone(Exception):
    """The client of a request waiting for a shared run disconnected before its result."""


class NotReady(Exception):
    """A shared run's result was not ready within the time a request may wait for it; the run goes on."""


class _Abandoned(Exception):
    """A run stopped before its work began: nobody waited for it any more."""


async def light(function: Callable[..., T], *args: Any) -> T:
    """Run ``function(*args)`` in the shared thread pool."""
    return await run_in_threadpool(function, *args)


def line_count(body: Any) -> int:
    """How many lines (``items``) a request body carries: what makes its issuing heavy or light."""
    items = body.get("items") if isinstance(body, dict) else None
    return len(items) if isinstance(items, list) else 0


@dataclass(eq=False)
class _Run:
    """One run of a shared work and the requests waiting for it."""

    waiting: int = 0
    #: Set once the work was told to stop (no request waited); a stopped run takes no new request.
    stopped: bool = False
    #: Set when a request was told to come back for the result (202): the run goes on without waiters.
    kept: bool = False
    task: asyncio.Task[Any] = field(init=False)

    def abandoned(self) -> bool:
        """Whether the work should stop: no request waits for it (once true, true for good). Asked from
        the worker thread; the counts change on the event loop's."""
        if self.waiting == 0 and not self.kept:
            self.stopped = True
        return self.stopped


class HeavyWork:
    """The heavy lane of one worker process and its shared runs; ``lock_dir`` holds the lock files that
    make a shared run happen once across the processes of one data directory."""

    def __init__(self, lock_dir: Path, slots: int = HEAVY_SLOTS):
        self._limiter = anyio.CapacityLimiter(slots)
        self._lock_dir = lock_dir
        self._runs: dict[str, _Run] = {}

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """Run ``function(*args)`` in a worker thread of the heavy lane (waiting for a slot first)."""
        return await anyio.to_thread.run_sync(functools.partial(function, *args), limiter=self._limiter)

    async def by_lines(self, lines: int, function: Callable[..., T], *args: Any) -> T:
        """Run ``function(*args)`` in the heavy lane when it deals with more than :data:`HEAVY_LINES`
        lines, else in the shared thread pool."""
        if lines > HEAVY_LINES:
            return await self.run(function, *args)
        return await light(function, *args)

    async def shared(
        self,
        key: str,
        work: Callable[[Callable[[], bool]], T],
        gone: asyncio.Event,
        wait: float | None = None,
    ) -> T:
        """The result of ``work(abandoned)`` run in the heavy lane, shared with every concurrent request
        for ``key``: the first one starts the run, the others wait for it. ``work`` asks ``abandoned()``
        now and then and stops (raising) when it turns true: every request waiting has gone. Raises
        :class:`ClientGone` when ``gone`` is set first (the run goes on for the others), and
        :class:`NotReady` when ``wait`` seconds passed first: the run then goes on to its end whoever
        waits (its result is stored by ``work``, for the request sent again)."""
        deadline = None if wait is None else asyncio.get_running_loop().time() + wait
        while True:
            run = self._runs.get(key)
            if run is None or run.stopped:
                run = self._start(key, work)
            run.waiting += 1
            left = asyncio.ensure_future(gone.wait())
            timeout = None if deadline is None else max(deadline - asyncio.get_running_loop().time(), 0.0)
            try:
                await asyncio.wait((run.task, left), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                run.waiting -= 1
                left.cancel()
            if not run.task.done():
                if gone.is_set() or deadline is None:
                    raise ClientGone
                run.kept = True
                raise NotReady
            if run.task.exception() is not None and run.stopped:
                continue  # it stopped for want of requests just as this one came: run it again
            return run.task.result()  # type: ignore[no-any-return]

    def _start(self, key: str, work: Callable[[Callable[[], bool]], Any]) -> _Run:
        run = _Run()
        run.task = asyncio.get_running_loop().create_task(self._run_once(key, work, run))
        run.task.add_done_callback(functools.partial(self._finished, key, run))
        self._runs[key] = run
        return run

    async def _run_once(self, key: str, work: Callable[[Callable[[], bool]], Any], run: _Run) -> Any:
        async with self._across_processes(key, run):
            return await self.run(work, run.abandoned)

    def _finished(self, key: str, run: _Run, task: asyncio.Task[Any]) -> None:
        if self._runs.get(key) is run:
            del self._runs[key]
        if not task.cancelled():
            task.exception()  # retrieved: a run nobody waited for any more must not log "never retrieved"

    @contextlib.asynccontextmanager
    async def _across_processes(self, key: str, run: _Run) -> AsyncIterator[None]:
        """Hold the lock file of ``key``'s stripe: another worker process running the same key finishes
        first (its result is then stored, and the work finds it). Waiting does not hold a thread."""
        self._lock_dir.mkdir(mode=0o700, exist_ok=True)
        stripe = zlib.crc32(key.encode()) % LOCK_STRIPES
        descriptor = os.open(self._lock_dir / f"shared-{stripe:03d}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if run.abandoned():
                        raise _Abandoned from None
                    await asyncio.sleep(LOCK_POLL_SECONDS)
            yield
        finally:
            os.close(descriptor)  # releases the lock (flock locks belong to this open file only)


def heavy_work(request: Request) -> HeavyWork:
    """The heavy lane of the application serving ``request`` (``create_app`` makes it)."""
    lane: HeavyWork = request.app.state.heavy
    return lane
