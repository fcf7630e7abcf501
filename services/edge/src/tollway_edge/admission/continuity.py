"""Counters that stay exact across a Valkey outage (issue 10; the rules are in
libs/admission/README.md, "Local mode and write-back").

:class:`SplitKeeper` is the edge process's side of it:

- **Heartbeat** (:meth:`SplitKeeper.run`, every ``interval`` s, default 5):
  registers the process in Valkey (``tollway_admission.EdgeRegistry``), keeps
  the count of edge processes alive and Valkey's data epoch, and writes back
  any unwritten local spend while Valkey answers.
- **Observe** (:meth:`SplitKeeper.observe`, after each exact admission): the
  budget counters' spent + reserved as admit saw them, plus this call — the
  last known counters, kept in process.
- **Split** (:meth:`SplitKeeper.enter_local`, when admission degrades):
  ``LocalLimiter.begin_split(N alive before the split, last known counters)``;
  the epoch seen before the split is remembered.
- **Write-back** (:meth:`SplitKeeper.write_back`, when Valkey answers again,
  before the process turns exact, and at every later heartbeat while spend
  is unwritten): per tenant, ``Admission.write_back`` with the id
  ``<process id>:<split id>:<seq>``; ``valkey_kept_data`` is "the epoch is
  the one seen before the split". A failed attempt is retried with the SAME
  id and amounts, so a write-back never counts twice.

Hooks in ``EdgeAdmission`` (adapter.py): ``observe(result)`` after an exact
admit, ``enter_local()`` in ``_degrade``, ``await write_back()`` in the probe
before ``mode = "exact"``, ``run()`` as a task from ``start`` (cancelled in
``stop``), and ``fill_baselines(quota_client.spend)`` in local mode (after a
local admit that met a counter never seen) for the ledger's spend.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
from collections.abc import Awaitable, Callable

import structlog

from tollway_admission import Admission, AdmitResult, EdgeRegistry, Window, utc_now
from tollway_admission.periods import Clock
from tollway_contracts.limits import Limit
from tollway_edge.admission.local_limits import LocalLimiter

log = structlog.get_logger("tollway_edge.admission")


def new_process_id() -> str:
    """``<host>:<pid>:<random>`` — unique per process life."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class SplitKeeper:
    """One edge process's registration, last known counters and write-back.

    Args:
        limiter: the process's local limiter.
        registry: this process's registration (Valkey).
        admission: the exact admission (write-back runs its script).
        interval: heartbeat period, s.
        clock: aware UTC now.
    """

    def __init__(
        self,
        limiter: LocalLimiter,
        registry: EdgeRegistry,
        admission: Admission,
        *,
        interval: float = 5.0,
        clock: Clock = utc_now,
    ) -> None:
        self.limiter = limiter
        self.registry = registry
        self.admission = admission
        self.interval = interval
        self._clock = clock
        self.alive: int | None = None
        self.epoch: str | None = None
        self.split_epoch: str | None = None
        self.split_id: int | None = None
        self._seq = 0
        self._known: dict[str, tuple[int, float]] = {}
        self._pending: dict[str, tuple[str, list[tuple[str, int]]]] = {}
        self.writebacks = 0

    # -- exact mode ------------------------------------------------------------

    def observe(self, result: AdmitResult) -> None:
        """Keep the budget counters an exact admission saw: spent + reserved
        before it plus its own reservation, micro-USD, until the period ends."""
        if not result.admitted:
            return
        now = result.now.timestamp()
        for c in result.checks:
            if c.kind == "budget":
                self._known[c.key] = (c.used + c.requested, now + c.reset_seconds)

    async def heartbeat(self) -> None:
        """One heartbeat (raises RedisError when Valkey is unreachable)."""
        hb = await self.registry.heartbeat()
        self.alive, self.epoch = hb.alive, hb.epoch

    async def run(self) -> None:
        """Heartbeat every ``interval`` s until cancelled; write back spend
        left unwritten whenever Valkey answers."""
        while True:
            try:
                await self.heartbeat()
                if self.limiter.unwritten() or self._pending:
                    await self.write_back()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - Valkey down: local mode handles it
                log.debug("edge_heartbeat_failed", error=repr(exc))
            await asyncio.sleep(self.interval)

    async def stop(self) -> None:
        """Deregister (best effort)."""
        with contextlib.suppress(Exception):
            await self.registry.deregister()

    # -- the split -------------------------------------------------------------

    def enter_local(self) -> None:
        """Valkey became unreachable: start local mode from the last known
        counters with ``N`` = processes alive before the split."""
        now = self._clock().timestamp()
        known = {k: used for k, (used, end) in self._known.items() if end > now}
        self.limiter.begin_split(self.alive, known)
        if self.split_id is None or not (self.limiter.unwritten() or self._pending):
            # (spend of an earlier split still unwritten keeps that split's epoch)
            self.split_epoch = self.epoch
            self.split_id = int(now * 1000)
        log.warning("admission_split", processes=self.limiter.share_of, known_counters=len(known))

    async def fill_baselines(self, spend: Callable[[str, Limit, Window], Awaitable[int]]) -> int:
        """Give the budget counters met in local mode that this process never
        saw the ledger's spend as their starting point (``spend``: quota's
        ledger read, ``QuotaSeedClient.spend``). Returns how many were set.

        Raises:
            SeedError (or the provider's error): quota unreachable; retry later.
        """
        n = 0
        for tenant, key, limit, window in self.limiter.missing_baselines():
            self.limiter.set_baseline(key, await spend(tenant, limit, window))
            n += 1
        return n

    async def write_back(self) -> None:
        """Write the spend made in local mode back to Valkey (module doc).

        Raises:
            tollway_admission.ValkeyError (redis-py's RedisError on a cluster):
                Valkey still unreachable; nothing is
                lost: the same ids and amounts are retried next time.
        """
        await self.heartbeat()  # the epoch NOW: a Valkey restarted empty gets a new one here
        kept = self.split_epoch is not None and self.epoch == self.split_epoch
        for tenant, items in self.limiter.unwritten().items():
            if tenant not in self._pending:
                self._seq += 1
                self._pending[tenant] = (f"{self.registry.process_id}:{self.split_id}:{self._seq}", items)
        for tenant, (wid, items) in list(self._pending.items()):
            applied = await self.admission.write_back(tenant, wid, items, valkey_kept_data=kept)
            self.limiter.written(tenant, items)
            del self._pending[tenant]
            self.writebacks += 1
            log.warning(
                "local_spend_written_back",
                tenant_id=tenant,
                writeback_id=wid,
                counters=len(items),
                micro_usd=sum(a for _, a in items),
                valkey_kept_data=kept,
                applied=applied,
            )
