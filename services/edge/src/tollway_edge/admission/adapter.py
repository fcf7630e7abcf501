"""Admission at the edge (adapter): ``tollway_admission`` on Valkey, cold
budget counters seeded by quota (``seed.QuotaSeedClient``; the edge never
reads the ledger), and the local fallback.

One call (DESIGN.md "The request path" 3, "Reservations"):

- :meth:`EdgeAdmission.admit` reserves the call's upper bound (non-stream:
  prompt bound + output bound; stream: prompt bound + the stream allowance),
  priced with the catalogue, on every applicable limit in ONE Valkey round
  trip (a cold budget counter adds one seed round, once per counter and
  period: quota writes the ledger's spend, one coalesced HTTP call). A
  refusal is an :class:`EdgeError` 429 with OpenAI's headers.
- :meth:`EdgeAdmission.extend` reserves more as a stream flows; refused means
  the edge ends the stream.
- :meth:`EdgeAdmission.release` gives back the concurrency slot when the
  response ends (quota's settlement also releases; both are idempotent;
  ``release.CallEnd``, with the settlement of unmetered and local calls).

Modes (``tollway_admission_mode`` gauge, ``/readyz``): ``exact`` (Valkey); while
Valkey is unreachable ``local`` (a per-process share of every limit) or
``refuse`` (503), per ``TOLLWAY_EDGE_ADMISSION_FAILURE_MODE``. A probe returns
to ``exact`` (``modes.ModeSwitch``) after local spend is written back
(``continuity.SplitKeeper``); lost counters are reseeded by quota (cold-counter path).
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta

import structlog

from tollway_admission import (
    Admission,
    Clock,
    EdgeRegistry,
    PipelinedClient,
    ValkeyClient,
    parse_valkey_url,
    utc_now,
    valkey_client,
)
from tollway_contracts.catalogue import Model
from tollway_contracts.pricing import cost_micro_usd
from tollway_edge.admission.continuity import SplitKeeper, new_process_id
from tollway_edge.admission.local_limits import LocalLimiter
from tollway_edge.admission.modes import unreachable
from tollway_edge.admission.release import CallEnd
from tollway_edge.admission.seed import QuotaSeedClient, SeedError, unseedable
from tollway_edge.admission.ticket import Ticket, refusal
from tollway_edge.auth.principals import Principal
from tollway_edge.errors import admission_unavailable, limits_invalid
from tollway_edge.metrics import ADMISSION_REFUSED

log = structlog.get_logger("tollway_edge.admission")

STREAM_TTL = timedelta(minutes=10)


class EdgeAdmission(CallEnd):
    """The edge's admission adapter (one per process; built by ``create_app``).

    Args:
        valkey_url: Valkey for the counters (``TOLLWAY_VALKEY_URL``).
        failure_mode: ``local`` or ``refuse`` while Valkey is unreachable.
        expected_processes: edge processes sharing each limit (local shares).
        stream_allowance_tokens: completion tokens a stream reserves up front.
        stream_extend_tokens: completion tokens each extension asks for.
        timeout_seconds: socket timeout of a Valkey command, s.
        probe_interval_seconds: how often Valkey is re-tried when down, s.
        max_connections: Valkey connection pool size.
        pipelined: run the scripts over one pipelined connection (default).
        quota_url: quota's base URL; cold budget counters are seeded by quota
            (``POST /internal/v1/budget-seeds``, ``seed.QuotaSeedClient``). None:
            a cold budget counter cannot be seeded (local bound or 503).
        quota_seed_token: the bearer token of that endpoint (``TOLLWAY_QUOTA_SEED_TOKEN``).
        clock: the admission clock (tests inject one; windows and periods derive from it).
        enabled: False admits everything without any I/O (benchmarks).
    """

    def __init__(
        self,
        *,
        valkey_url: str,
        failure_mode: str = "local",
        expected_processes: int = 1,
        stream_allowance_tokens: int = 256,
        stream_extend_tokens: int = 256,
        timeout_seconds: float = 1.0,
        probe_interval_seconds: float = 0.5,
        max_connections: int = 512,
        pipelined: bool = True,
        quota_url: str | None = None,
        quota_seed_token: str = "",
        clock: Clock = utc_now,
        enabled: bool = True,
    ) -> None:
        self._url = valkey_url
        self.failure_mode = failure_mode
        self.stream_allowance = stream_allowance_tokens
        self.stream_step = max(1, stream_extend_tokens)
        self._timeout = timeout_seconds
        self._probe_interval = probe_interval_seconds
        self._max_connections = max_connections
        self._pipelined = pipelined
        self.clock = clock
        self.enabled = enabled
        self.local = LocalLimiter(expected_processes)
        self.client: ValkeyClient | None = None
        self.fast: PipelinedClient | None = None
        self.adm: Admission | None = None
        self.mode = "exact"
        self._probe: asyncio.Task[None] | None = None
        # issue 10: quota seeds cold counters; the keeper keeps local mode exact
        self.seeder = QuotaSeedClient(quota_url, quota_seed_token) if quota_url else None
        self.keeper: SplitKeeper | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._baselines: asyncio.Task[None] | None = None
        self._set_gauge()

    async def start(self) -> None:
        """Connect and load the scripts; an unreachable Valkey starts the process degraded."""
        if not self.enabled:
            return
        self.client = valkey_client(
            self._url, max_connections=self._max_connections, timeout=self._timeout, service="edge"
        )
        # Scripts (admit, extend, release) go over one pipelined connection:
        # far less CPU per call than the pool, and no pool to exhaust (one node; a cluster routes per slot).
        single = not parse_valkey_url(self._url).cluster
        fast = self._pipelined and single
        self.fast = PipelinedClient(self._url, timeout=self._timeout, service="edge") if fast else None
        self.adm = Admission(self.client, clock=self.clock, seed_provider=unseedable, pipelined=self.fast)
        self.keeper = SplitKeeper(
            self.local, EdgeRegistry(self.client, new_process_id()), self.adm, clock=self.clock
        )
        self._heartbeat = asyncio.create_task(self.keeper.run(), name="admission-heartbeat")
        try:
            await self.adm.load()
        except unreachable() as exc:
            self._degrade("start", exc)

    async def stop(self) -> None:
        """Stop the probe and close the Valkey pool."""
        for task in (self._heartbeat,):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self.keeper is not None:
            await self.keeper.stop()
        if self.seeder is not None:
            await self.seeder.close()
        if self._probe is not None:
            self._probe.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._probe
        if self.fast is not None:
            self.fast.disconnect()
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.aclose()

    async def admit(
        self,
        principal: Principal,
        model: str,
        entry: Model,
        prompt: int,
        out: int,
        request_id: str,
        stream: bool,
    ) -> Ticket | None:
        """Reserve the call's upper bound on every applicable limit.

        Args:
            prompt: the prompt bound, tokens (``bounds.prompt_token_bound``).
            out: the output bound, tokens (``bounds.output_token_bound``);
                a stream reserves at most the stream allowance up front.

        Returns:
            The ticket, or None when admission is disabled or no limit applies.

        Raises:
            tollway_edge.errors.EdgeError: 429 refused (OpenAI headers, ``Retry-After``); 503 when
                Valkey is unreachable in ``refuse`` mode, or a cold counter
                cannot be seeded and local mode is off.
        """
        if not self.enabled:
            return None
        if principal.unreadable and "limits" in principal.unreadable:
            raise limits_invalid()  # fail closed: the key's limits cannot be read
        limits = principal.limits
        if not limits:
            return None
        if stream:
            out = min(out, self.stream_allowance)
        tokens = prompt + out
        cost = cost_micro_usd(entry.prices, prompt_tokens=prompt, completion_tokens=out)
        tenant = principal.tenant_id
        ticket = Ticket("exact", None, tenant, request_id, limits, model, entry.prices, prompt, out)  # type: ignore[arg-type]  # result is set once admitted
        if self.mode == "exact":
            assert self.adm is not None
            try:
                result = await self.adm.admit(
                    tenant_id=tenant,
                    request_id=request_id,
                    limits=limits,
                    model=model,
                    tokens=tokens,
                    cost_micro_usd=cost,
                    # cold counters: quota seeds them from the ledger (one coalesced call)
                    seed_provider=self.seeder.provider(tenant) if self.seeder is not None else None,
                )
            except unreachable() as exc:
                self._degrade("admit", exc)
            except SeedError as exc:
                log.warning("budget_seed_failed", error=str(exc))
                if self.failure_mode != "local":
                    raise admission_unavailable() from None
                return self._admit_local(ticket, tokens, cost)
            else:
                if result.status == "admitted":
                    if self.keeper is not None:
                        self.keeper.observe(result)
                    ticket.result = result
                    ticket.reservation = result.reservation
                    if result.would_refuse:
                        ticket.note_shadow(result.would_refuse)
                    ticket.has_slot = any(c.kind == "concurrency" for c in result.checks)
                    ticket.headers = result.headers()
                    return ticket
                if result.status == "refused":
                    raise refusal(result)
                log.error("admission_unexpected", status=result.status)
                raise admission_unavailable()
        if self.mode == "refuse":
            raise admission_unavailable()
        return self._admit_local(ticket, tokens, cost)

    def _admit_local(self, ticket: Ticket, tokens: int, cost: int) -> Ticket:
        result, res = self.local.admit(
            tenant_id=ticket.tenant_id,
            request_id=ticket.request_id,
            limits=ticket.limits,
            model=ticket.model,
            tokens=tokens,
            cost_micro_usd=cost,
            now=self.clock(),
        )
        if res is None:
            raise refusal(result)
        ticket.mode = "local"
        if result.would_refuse:
            ticket.note_shadow(result.would_refuse)
        if self.keeper is not None and self.seeder is not None and self.local.missing_baselines():
            if self._baselines is None or self._baselines.done():  # one fetch at a time
                self._baselines = asyncio.create_task(self._fill_baselines(self.keeper, self.seeder))
        ticket.result = result
        ticket.local = res
        ticket.has_slot = any(c.kind == "concurrency" for c in result.checks)
        ticket.headers = result.headers()
        return ticket

    async def extend(self, ticket: Ticket, tokens: int) -> bool:
        """Reserve ``tokens`` more completion tokens (priced) for a stream, all or nothing.

        Returns:
            True when reserved; False means the edge ends the stream.
        """
        cost = cost_micro_usd(ticket.prices, prompt_tokens=0, completion_tokens=tokens)
        ok = False
        if ticket.mode == "exact" and self.mode == "exact":
            assert self.adm is not None
            try:
                res = await self.adm.extend(
                    tenant_id=ticket.tenant_id,
                    request_id=ticket.request_id,
                    tokens=tokens,
                    cost_micro_usd=cost,
                    ttl=STREAM_TTL,
                    reservation=ticket.reservation,
                )
                ok = res.extended
                if not ok:
                    ADMISSION_REFUSED.labels("extension").inc()
                    log.info("extension_refused", request_id=ticket.request_id, status=res.status)
            except unreachable() as exc:
                self._degrade("extend", exc)
            else:
                if ok:
                    if res.would_refuse_keys:
                        keys = set(res.would_refuse_keys)
                        ticket.note_shadow(c for c in ticket.result.checks if c.key in keys)
                    ticket.ext_tokens += tokens
                    ticket.ext_cost += cost
                    ticket.reserved_out += tokens
                return ok
        if self.mode == "refuse":
            return False
        ext_result, extra = self.local.admit(
            tenant_id=ticket.tenant_id,
            request_id=ticket.request_id,
            limits=ticket.limits,
            model=ticket.model,
            tokens=tokens,
            cost_micro_usd=cost,
            now=self.clock(),
            count_call=False,
        )
        if extra is None:
            ADMISSION_REFUSED.labels("extension").inc()
            return False
        if ext_result.would_refuse:
            ticket.note_shadow(ext_result.would_refuse)
        if ticket.local is None:
            ticket.local = extra
        else:
            LocalLimiter.merge(ticket.local, extra)
        ticket.ext_tokens += tokens
        ticket.ext_cost += cost
        ticket.reserved_out += tokens
        return True
