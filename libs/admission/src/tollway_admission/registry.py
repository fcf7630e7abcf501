"""Edge processes alive, and the Valkey epoch (issue 10: local mode's share
uses the number of edge processes alive before the split, not a setting).

Each edge process calls :meth:`EdgeRegistry.heartbeat` every few seconds
(``interval``, default 5 s): one pipelined round trip that

- records the process in the sorted set ``tw:edges`` (member: process id,
  score: epoch ms until which it counts as alive = now + ``ttl``, default
  15 s), drops members whose score has passed, and counts the rest — so a
  process that died stops counting ``ttl`` after its last heartbeat;
- creates ``tw:epoch`` (a random id, ``SET NX``, no expiry) if missing and
  reads it. An empty Valkey (restarted without its data) has no epoch; the
  first heartbeat after the restart writes a new one, so a process that saw
  epoch E before a split and E' after knows the counters were lost.

The count read by the last heartbeat before Valkey became unreachable is the
``N`` of the local share (``limit // N``). Autoscaling adds processes that
register within one heartbeat; a process that starts while Valkey is down
has no count and uses its configured fallback.

Neither key is a tenant's: on a cluster they live on one node (the registry
is not on the admission path). The epoch then only detects the loss of that
node's data (see libs/admission/README.md, "Local mode and write-back").
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from tollway_admission.periods import Clock, utc_now
from tollway_admission.urls import ValkeyClient

EDGES_KEY = "tw:edges"
EPOCH_KEY = "tw:epoch"


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """What one heartbeat read.

    Attributes:
        alive: edge processes alive (this one included), >= 1.
        epoch: Valkey's data epoch (changes when Valkey lost its data).
    """

    alive: int
    epoch: str


def _s(v: object) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


class EdgeRegistry:
    """One edge process's registration (module doc).

    Args:
        client: the admission Valkey client.
        process_id: unique per process (host, pid, start time).
        ttl: how long a heartbeat keeps the process counted.
        clock: aware UTC now.
    """

    def __init__(
        self,
        client: ValkeyClient,
        process_id: str,
        *,
        ttl: timedelta = timedelta(seconds=15),
        clock: Clock = utc_now,
    ) -> None:
        self._r = client
        self.process_id = process_id
        self._ttl_ms = int(ttl.total_seconds() * 1000)
        self._clock = clock

    async def heartbeat(self) -> Heartbeat:
        """Register (or refresh) this process; count the living; read the epoch.

        Raises:
            ValkeyError (:mod:`tollway_admission.errors`) or redis-py's RedisError: Valkey unreachable.
        """
        now_ms = int(self._clock().timestamp() * 1000)
        async with self._r.pipeline(transaction=False) as p:
            p.zadd(EDGES_KEY, {self.process_id: now_ms + self._ttl_ms})
            p.zremrangebyscore(EDGES_KEY, "-inf", now_ms)
            p.zcard(EDGES_KEY)
            p.pexpire(EDGES_KEY, self._ttl_ms * 4)
            p.set(EPOCH_KEY, secrets.token_hex(8), nx=True)
            p.get(EPOCH_KEY)
            out = await p.execute()
        return Heartbeat(max(1, int(out[2])), _s(out[5]))

    async def deregister(self) -> None:
        """Stop counting this process (at shutdown). Raises ValkeyError or redis-py's RedisError."""
        await self._r.zrem(EDGES_KEY, self.process_id)
