"""Kafka that can come back: a TCP forwarder on a free port to the real broker.

Point a client's bootstrap address at ``Forwarder.port`` before ``start()``:
Kafka is unreachable; after ``start()`` the bootstrap succeeds and the broker
advertises its own address (127.0.0.1:9092), which the client then uses.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Forwarder:
    """A TCP forwarder on ``port`` to ``target``: Kafka's bootstrap address that can be switched on."""

    def __init__(self, port: int, target: str) -> None:
        self.port = port
        host, tport = target.split(",")[0].rsplit(":", 1)
        self._target = (host, int(tport))
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, reuse_address=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self._target)

        async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
            w.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
