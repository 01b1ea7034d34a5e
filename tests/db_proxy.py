"""A TCP proxy on loopback between the service and its PostgreSQL, which a test takes down and brings
back: the database going away and coming back without touching the shared server.

``down()`` ends every connection through it and refuses new ones (a server stopped: clients get
"connection refused"); ``up()`` listens again on the same port (the server back); ``cut()`` ends every
connection and keeps serving (a restart seen from a pool, or backends terminated); ``silence()`` keeps
every connection open and accepts new ones but forwards nothing either way (a hung server, a network that
drops packets: nothing is closed, nothing answers) until ``up()``, which ends the connections it held.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

from tests.conftest import free_port


class DatabaseProxy:
    """Forwards ``127.0.0.1:<port>`` to ``upstream`` (host, port) from an event loop of its own thread."""

    def __init__(self, upstream: tuple[str, int]):
        self.upstream = upstream
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.base_events.Server | None = None
        self._transports: set[asyncio.BaseTransport] = set()
        self._silent = False

    def start(self) -> None:
        self._thread.start()
        self.up()

    def stop(self) -> None:
        self.down()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def up(self) -> None:
        """Listen again: new connections reach the database (after :meth:`silence`, the connections it
        held are ended: what was sent meanwhile is lost)."""
        self._call(self._wake())
        self._call(self._listen())

    def silence(self) -> None:
        """Forward nothing, either way, and answer nothing, while keeping every connection open."""
        self._silent = True

    def down(self) -> None:
        """Stop listening and end every open connection: the database is gone."""
        self._call(self._close(listening=True))

    def cut(self) -> None:
        """End every open connection (as a restart or ``pg_terminate_backend`` does); keep listening."""
        self._call(self._close(listening=False))

    def _call(self, work: object) -> None:
        asyncio.run_coroutine_threadsafe(work, self._loop).result(timeout=30)  # type: ignore[arg-type]

    async def _listen(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port, reuse_address=True)

    async def _close(self, *, listening: bool) -> None:
        if listening and self._server is not None:
            self._server.close()
            self._server = None
        for transport in list(self._transports):
            transport.abort()
        self._transports.clear()

    async def _wake(self) -> None:
        if self._silent:
            self._silent = False
            await self._close(listening=False)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._silent:  # accepted, and never answered
            self._transports.add(writer.transport)
            with contextlib.suppress(ConnectionError, OSError):
                while await reader.read(65536):
                    pass
            self._transports.discard(writer.transport)
            writer.transport.abort()
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.transport.abort()
            return
        self._transports |= {writer.transport, upstream_writer.transport}
        await asyncio.gather(self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                if self._silent:
                    continue  # swallowed
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            self._transports.discard(writer.transport)
            writer.transport.abort()


@contextlib.contextmanager
def database_proxy(upstream: tuple[str, int]) -> Iterator[DatabaseProxy]:
    """A :class:`DatabaseProxy` serving until the block ends."""
    proxy = DatabaseProxy(upstream)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()
