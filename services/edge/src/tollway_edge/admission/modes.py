"""Admission's modes at the edge (``tollway_admission_mode`` gauge, ``/readyz``):
``exact`` (Valkey); while Valkey is unreachable ``local`` (a per-process
share of every limit) or ``refuse`` (503), per
``TOLLWAY_EDGE_ADMISSION_FAILURE_MODE``. A probe returns to ``exact`` once
Valkey answers and local spend was written back (``continuity.SplitKeeper``).
"""

from __future__ import annotations

import asyncio

import structlog

from tollway_admission import (
    Admission,
    PipelinedClient,
    ValkeyClient,
    drop_idle_connections,
    unavailable_errors,
)
from tollway_edge.admission.continuity import SplitKeeper
from tollway_edge.admission.seed import QuotaSeedClient
from tollway_edge.metrics import ADMISSION_MODE

log = structlog.get_logger("tollway_edge.admission")

unreachable = unavailable_errors
"""``except unreachable():`` — Valkey cannot answer now, on one node (our clients'
errors) or a cluster (redis-py's, once loaded); evaluated only when an exception
reaches the clause, so redis-py is never imported for it."""
MODES = ("exact", "local", "refuse")


class ModeSwitch:
    """The mode of :class:`~tollway_edge.admission.EdgeAdmission` (a base class
    of it): degrading on a Valkey error, the gauge, the probe back to ``exact``.

    Attributes (set by ``EdgeAdmission``):
        mode: ``exact``, ``local`` or ``refuse`` now.
        failure_mode: the mode while Valkey is unreachable (``local``/``refuse``).
    """

    mode: str
    failure_mode: str
    client: ValkeyClient | None
    fast: PipelinedClient | None
    adm: Admission | None
    keeper: SplitKeeper | None
    _probe: asyncio.Task[None] | None
    _probe_interval: float

    def _set_gauge(self) -> None:
        for m in MODES:
            ADMISSION_MODE.labels(m).set(1 if m == self.mode else 0)

    def _degrade(self, where: str, exc: BaseException | None = None) -> None:
        if self.mode != "exact":
            return
        self.mode = self.failure_mode
        if self.adm is not None:
            self.adm.forget_seeds()  # Valkey may come back empty: never reuse a seed from before
        self._set_gauge()
        log.warning("admission_degraded", mode=self.mode, where=where, error=repr(exc))
        if self.keeper is not None and self.mode == "local":
            self.keeper.enter_local()
        if self._probe is None or self._probe.done():
            self._probe = asyncio.create_task(self._probe_loop(), name="admission-probe")

    async def _probe_loop(self) -> None:
        assert self.client is not None and self.adm is not None
        while True:
            await asyncio.sleep(self._probe_interval)
            try:
                # Idle connections from before the outage are dead: drop them
                # all so none fails the first calls once exact again.
                await drop_idle_connections(self.client)
                if self.fast is not None:
                    self.fast.disconnect()
                await self.client.ping()
                await self.adm.load()
            except Exception as exc:  # noqa: BLE001 - still down
                log.debug("admission_probe_failed", error=repr(exc))
                continue
            if self.keeper is not None:
                try:
                    await self.keeper.write_back()  # before exact: local spend lands once
                except Exception as exc:  # noqa: BLE001 - retried next probe
                    log.warning("local_spend_write_back_failed", error=repr(exc))
                    continue
            self.mode = "exact"
            self._set_gauge()
            log.warning("admission_exact_again")
            return

    async def _fill_baselines(self, keeper: SplitKeeper, seeder: QuotaSeedClient) -> None:
        try:
            await keeper.fill_baselines(seeder.spend)
        except Exception as exc:  # noqa: BLE001 - the share stays from 0 until the next try
            log.warning("local_baseline_failed", error=repr(exc))
