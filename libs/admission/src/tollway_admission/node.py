"""One Valkey node's client without redis-py: the commands the edge and admission use.

:class:`NodeClient` answers the subset of ``redis.asyncio.Redis``'s interface
that admission (:class:`~tollway_admission.Admission`, the edge registry) and the
edge (breakers, principals sync, response cache and directory) call, with
redis-py's reply shapes (``bytes`` values, ``SET`` → ``True``/``None``, ``SCRIPT
LOAD`` → ``str``, ``ZRANGEBYSCORE ... WITHSCORES`` → ``(member, float)`` pairs),
over one :class:`~tollway_admission.pipelined.PipelinedClient` connection: every
command is pipelined on it, and a lost connection is reopened by the next command.
:meth:`NodeClient.pipeline` batches commands in one write (as redis-py's
``Pipeline`` without a transaction); :meth:`NodeClient.pubsub` opens a subscriber
connection of its own.

Errors are :mod:`tollway_admission.errors`' (``ValkeyConnectionError``,
``ValkeyTimeoutError``, ``ValkeyResponseError``, ``NoScriptError``). Importing
this module does not import redis-py (the edge's workers do not load it for a
single-node URL, see ``services/edge/tests/unit/test_worker_imports.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from tollway_admission.errors import ValkeyConnectionError
from tollway_admission.pipelined import PipelinedClient, pack

Reply = Callable[[Any], Any]
"""Turns a raw RESP2 reply into redis-py's shape for that command."""


def _ok(reply: Any) -> bool | None:
    return True if reply is not None else None


def _bool(reply: Any) -> bool:
    return bool(reply)


def _str(reply: Any) -> str:
    return reply.decode() if isinstance(reply, bytes) else str(reply)


def _pairs(reply: Any) -> list[tuple[bytes, float]]:
    return [(reply[i], float(reply[i + 1])) for i in range(0, len(reply), 2)]


class _Commands:
    """The command methods; a subclass's :meth:`_call` runs one (client) or queues it (pipeline)."""

    def _call(self, shape: Reply | None, *args: Any) -> Any:
        raise NotImplementedError

    def ping(self) -> Any:
        """``PING`` → True."""
        return self._call(_bool, "PING")

    def get(self, name: str) -> Any:
        """``GET`` → bytes or None."""
        return self._call(None, "GET", name)

    def set(
        self,
        name: str,
        value: bytes | str | int,
        *,
        ex: int | None = None,
        px: int | None = None,
        nx: bool = False,
    ) -> Any:
        """``SET name value [EX s] [PX ms] [NX]`` → True, or None when ``NX`` found the key."""
        args: list[Any] = ["SET", name, value]
        if ex is not None:
            args += ["EX", ex]
        if px is not None:
            args += ["PX", px]
        if nx:
            args.append("NX")
        return self._call(_ok, *args)

    def execute_command(self, *args: Any) -> Any:
        """Any command, its raw RESP2 reply (bytes, int, list, None)."""
        return self._call(None, *args)

    def exists(self, *names: str) -> Any:
        """``EXISTS`` → how many of ``names`` exist."""
        return self._call(None, "EXISTS", *names)

    def ttl(self, name: str) -> Any:
        """``TTL`` → seconds left, -1 without expiry, -2 when absent."""
        return self._call(None, "TTL", name)

    def incr(self, name: str, amount: int = 1) -> Any:
        """``INCRBY`` → the new value."""
        return self._call(None, "INCRBY", name, amount)

    def delete(self, *names: str) -> Any:
        """``DEL`` → the number of keys removed."""
        return self._call(None, "DEL", *names)

    def publish(self, channel: str, message: bytes | str) -> Any:
        """``PUBLISH`` → the number of subscribers that received it (on this node)."""
        return self._call(None, "PUBLISH", channel, message)

    def hget(self, name: str, key: str) -> Any:
        """``HGET`` → bytes or None."""
        return self._call(None, "HGET", name, key)

    def hmget(self, name: str, keys: str | list[str], *args: str) -> Any:
        """``HMGET`` → a list of bytes or None, one per field (redis-py's signature)."""
        fields = [keys] if isinstance(keys, str) else list(keys)
        return self._call(None, "HMGET", name, *fields, *args)

    def zadd(self, name: str, mapping: Mapping[str, float | int]) -> Any:
        """``ZADD name score member ...`` → the number of members added."""
        args: list[Any] = []
        for member, score in mapping.items():
            args += [score, member]
        return self._call(None, "ZADD", name, *args)

    def zrem(self, name: str, *values: str) -> Any:
        """``ZREM`` → the number of members removed."""
        return self._call(None, "ZREM", name, *values)

    def zcard(self, name: str) -> Any:
        """``ZCARD`` → int."""
        return self._call(None, "ZCARD", name)

    def zremrangebyscore(self, name: str, min: float | str, max: float | str) -> Any:  # noqa: A002 - redis-py's names
        """``ZREMRANGEBYSCORE`` → the number of members removed."""
        return self._call(None, "ZREMRANGEBYSCORE", name, min, max)

    def zrangebyscore(
        self,
        name: str,
        min: float | str,  # noqa: A002 - redis-py's names
        max: float | str,  # noqa: A002
        start: int | None = None,
        num: int | None = None,
        withscores: bool = False,
    ) -> Any:
        """``ZRANGEBYSCORE [WITHSCORES] [LIMIT start num]`` → members, or
        ``(member, float score)`` pairs with ``withscores``.

        Raises:
            ValueError: only one of ``start`` and ``num`` given (as redis-py)."""
        if (start is None) != (num is None):
            raise ValueError("``start`` and ``num`` must both be specified")
        args: list[Any] = ["ZRANGEBYSCORE", name, min, max]
        if withscores:
            args.append("WITHSCORES")
        if start is not None:
            args += ["LIMIT", start, num]
        return self._call(_pairs if withscores else None, *args)

    def pexpire(self, name: str, ms: int) -> Any:
        """``PEXPIRE`` → True if the key exists."""
        return self._call(_bool, "PEXPIRE", name, ms)

    def script_load(self, script: str) -> Any:
        """``SCRIPT LOAD`` → the script's SHA1 (``str``)."""
        return self._call(_str, "SCRIPT", "LOAD", script)

    def evalsha(self, sha: str, numkeys: int, *keys_and_args: Any) -> Any:
        """``EVALSHA sha numkeys *keys *args`` → the script's reply (``NoScriptError`` if not loaded)."""
        return self._call(None, "EVALSHA", sha, numkeys, *keys_and_args)


class NodeClient(_Commands):
    """A single Valkey node: redis-py's call shapes over one pipelined connection.

    Args:
        url: a single-node Valkey URL (``redis://``, ``rediss://``, ``unix://``;
            :mod:`tollway_admission.urls`).
        timeout: connect and reply timeout per command, s.
        service: the ``service`` label of its round trips (``client="pipelined"``).

    Raises:
        ValueError: a URL it cannot serve (as :class:`PipelinedClient`: unknown
            scheme or option, a cluster URL, RESP3).
    """

    def __init__(self, url: str, *, timeout: float = 5.0, service: str = "unknown") -> None:
        self._url = url
        self._timeout = timeout
        self._service = service
        self._c = PipelinedClient(url, timeout=timeout, service=service)

    async def _run(self, shape: Reply | None, args: tuple[Any, ...]) -> Any:
        reply = await self._c.execute_packed(pack(args))
        return shape(reply) if shape is not None else reply

    def _call(self, shape: Reply | None, *args: Any) -> Any:
        return self._run(shape, args)

    async def scan_iter(self, match: str | None = None, count: int | None = None) -> AsyncIterator[bytes]:
        """Every key (matching ``match``), by ``SCAN`` (a key may come twice, as with redis-py)."""
        cursor = b"0"
        extra: list[Any] = []
        if match is not None:
            extra += ["MATCH", match]
        if count is not None:
            extra += ["COUNT", count]
        while True:
            cursor, keys = await self._c.execute("SCAN", cursor, *extra)
            for key in keys:
                yield key
            if cursor == b"0":
                return

    def pipeline(self, transaction: bool = False) -> NodePipeline:
        """A batch of commands sent in one write by :meth:`NodePipeline.execute`.

        Raises:
            ValueError: ``transaction=True`` (MULTI/EXEC is not offered)."""
        if transaction:
            raise ValueError("NodeClient pipelines are not transactions; pass transaction=False")
        return NodePipeline(self._c)

    def pubsub(self, ignore_subscribe_messages: bool = True) -> PubSub:
        """A subscriber on a connection of its own (:class:`PubSub`)."""
        return PubSub(
            self._url,
            timeout=self._timeout,
            service=self._service,
            ignore_subscribe_messages=ignore_subscribe_messages,
        )

    def disconnect(self) -> None:
        """Close the connection (pending commands fail); the next command reconnects."""
        self._c.disconnect()

    async def aclose(self) -> None:
        """Close the connection."""
        self._c.disconnect()


class NodePipeline(_Commands):
    """Commands queued by the command methods (each returns the pipeline) and sent
    in ONE write by :meth:`execute` (no transaction: each command runs on its own)."""

    def __init__(self, client: PipelinedClient) -> None:
        self._c = client
        self._queued: list[bytes] = []
        self._shapes: list[Reply | None] = []

    def _call(self, shape: Reply | None, *args: Any) -> NodePipeline:
        self._queued.append(pack(args))
        self._shapes.append(shape)
        return self

    async def execute(self) -> list[Any]:
        """Send the queued commands; their replies in order (the queue is emptied).

        Raises:
            ValkeyConnectionError, ValkeyTimeoutError; the first error reply
                (``ValkeyResponseError``, ``NoScriptError``) once all replies arrived.
        """
        queued, shapes = self._queued, self._shapes
        self._queued, self._shapes = [], []
        replies = await self._c.execute_many(queued)
        return [s(r) if s is not None else r for s, r in zip(shapes, replies, strict=True)]

    async def __aenter__(self) -> NodePipeline:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._queued.clear()
        self._shapes.clear()


class PubSub:
    """A subscriber connection (redis-py's ``PubSub`` shape): :meth:`subscribe`, then
    iterate :meth:`listen`; :meth:`aclose` when done. A lost connection ends
    ``listen`` with ``ValkeyConnectionError``: subscribe again on a new ``PubSub``.

    Args:
        url: a single-node Valkey URL (a cluster relays ``PUBLISH`` to every node,
            so any node of it will do: :func:`~tollway_admission.urls.node_url`).
        timeout: connect timeout, s.
        service: the ``service`` label of its round trips.
        ignore_subscribe_messages: drop the subscribe confirmations (yield only messages).
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 5.0,
        service: str = "unknown",
        ignore_subscribe_messages: bool = True,
    ) -> None:
        self._c = PipelinedClient(url, timeout=timeout, service=service)
        self._ignore = ignore_subscribe_messages
        self._queue: asyncio.Queue[Any] = asyncio.Queue()

    async def subscribe(self, *channels: str) -> None:
        """``SUBSCRIBE`` (the connection opens now).

        Raises:
            ValkeyConnectionError, ValkeyTimeoutError: cannot connect."""
        await self._c.subscribe(channels, self._queue.put_nowait, self._queue.put_nowait)

    async def listen(self) -> AsyncIterator[dict[str, Any]]:
        """Messages as ``{"type": "message", "channel": bytes, "data": bytes}``
        (and ``"subscribe"`` confirmations unless ignored), as they arrive.

        Raises:
            ValkeyConnectionError: the connection was lost.
            ValkeyResponseError: Valkey refused the subscription."""
        while True:
            item = await self._queue.get()
            if isinstance(item, Exception):
                raise item
            if not isinstance(item, list) or len(item) < 3:  # pragma: no cover - not a pub/sub frame
                continue
            kind = _str(item[0])
            if kind == "message":
                yield {"type": "message", "pattern": None, "channel": item[1], "data": item[2]}
            elif not self._ignore:
                yield {"type": kind, "pattern": None, "channel": item[1], "data": item[2]}

    async def aclose(self) -> None:
        """Close the connection."""
        self._c.disconnect()
        self._queue.put_nowait(ValkeyConnectionError("subscriber closed"))
