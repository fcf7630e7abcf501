"""Valkey round trips counted at the clients (``tollway_valkey_round_trips_total``).

Valkey's own ``total_commands_processed`` also counts the commands a Lua
script runs inside the server, so it cannot say how often a service waited
on Valkey. This counter does: it is incremented where a client sends and then
waits for the replies, labelled ``service`` (the process's service: ``edge``,
``quota``) and ``client``:

- ``pipelined``: :class:`~tollway_admission.pipelined.PipelinedClient`, one per
  command a caller awaits (``execute``/``evalsha``); commands of concurrent
  callers may share one socket write, but each caller waits for its own reply.
  A new connection's ``AUTH``/``SELECT``/``CLIENT SETNAME`` count as one.
- ``redis-py``: a redis-py asyncio client wrapped by :func:`count_round_trips`,
  one per packed send of a connection (a command, a whole pipeline, a
  ``SUBSCRIBE``, the handshake of a new connection).

It is a module-level prometheus-client ``Counter``, so a service exports it
through ``tollway_runtime.metrics`` (``GET /metrics``) like its own metrics,
summed over worker processes in multiprocess mode.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, TypeVar, cast

from prometheus_client import Counter

if TYPE_CHECKING:  # redis-py is imported only when a redis-py client is wrapped
    from redis.asyncio.connection import AbstractConnection

__all__ = ["VALKEY_ROUND_TRIPS", "count_round_trips", "counting_connection_class"]

VALKEY_ROUND_TRIPS = Counter(
    "tollway_valkey_round_trips",
    "Round trips to Valkey counted at the client: one per command a caller awaits on the "
    "pipelined client, one per packed send (command, pipeline, subscribe) of a redis-py "
    "connection; by service (edge, quota) and client (pipelined, redis-py).",
    ["service", "client"],
)

C = TypeVar("C")
K = TypeVar("K", bound="AbstractConnection")

_CLASSES: dict[tuple[type[AbstractConnection], str], type[AbstractConnection]] = {}


def counting_connection_class(base: type[K], service: str) -> type[K]:
    """A subclass of redis-py's asyncio connection class ``base`` whose every
    ``send_packed_command`` counts one round trip of ``service`` (``client="redis-py"``).

    The same class is returned for the same ``(base, service)``; a class that
    already counts is returned as is (wrapping a client twice counts once).
    """
    if getattr(base, "_tollway_counts_round_trips", False):
        return base
    key = (base, service)
    made = _CLASSES.get(key)
    if made is not None:
        return cast(type[K], made)
    child = VALKEY_ROUND_TRIPS.labels(service=service, client="redis-py")
    send = cast(Callable[..., Awaitable[None]], base.send_packed_command)

    async def send_packed_command(
        self: AbstractConnection, command: bytes | str | Iterable[bytes], check_health: bool = True
    ) -> None:
        child.inc()
        await send(self, command, check_health)

    made = cast(
        type[K],
        type(
            f"RoundTripCounting{base.__name__}",
            (base,),
            {"send_packed_command": send_packed_command, "_tollway_counts_round_trips": True},
        ),
    )
    _CLASSES[key] = made
    return made


def count_round_trips(client: C, service: str) -> C:
    """Make the redis-py asyncio ``client`` count its round trips as ``service``; returns it.

    Call it before the client's first command: connections it has already
    opened keep their class (a pool opens them lazily, so a fresh client has
    none). A single node's pool and a cluster client (its startup nodes and
    every node it discovers later) are both handled.

    Raises:
        TypeError: ``client`` is neither ``redis.asyncio.Redis`` nor ``RedisCluster``.
    """
    from redis.asyncio import Redis, RedisCluster

    if isinstance(client, RedisCluster):
        cls = counting_connection_class(client.connection_kwargs["connection_class"], service)
        client.connection_kwargs["connection_class"] = cls
        client.nodes_manager.connection_kwargs["connection_class"] = cls  # nodes found later
        for node in client.nodes_manager.startup_nodes.values():
            node.connection_class = cls
        return client
    if isinstance(client, Redis):
        pool = client.connection_pool
        pool.connection_class = counting_connection_class(pool.connection_class, service)
        return client
    raise TypeError(f"count_round_trips: not a redis.asyncio client: {type(client).__name__}")
