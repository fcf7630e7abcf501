"""Admission at the edge (adapter): ``tollway_admission`` on Valkey, the
ledger seed provider on Postgres, and the local fallback.

One call (DESIGN.md "The request path" 3, "Reservations"):

- :meth:`EdgeAdmission.admit` reserves the call's upper bound (non-stream:
  prompt bound + output bound; stream: prompt bound + the stream allowance),
  priced with the catalogue, on every applicable limit in ONE Valkey round
  trip (a cold budget counter adds one seed round, once per counter and
  period: the ledger's spend, read on the read-only Postgres pool). A
  refusal is an :class:`EdgeError` 429 with OpenAI's headers.
- :meth:`EdgeAdmission.extend` reserves more as a stream flows; refused means
  the edge ends the stream.
- :meth:`EdgeAdmission.release` gives back the concurrency slot when the
  response ends (quota's settlement also releases; both are idempotent).

Modes (``tollway_admission_mode`` gauge, ``/readyz`` body): ``exact`` (Valkey),
and when Valkey is unreachable, per ``TOLLWAY_EDGE_ADMISSION_FAILURE_MODE``,
``local`` (:class:`LocalLimiter`: a per-process share of every limit) or
``refuse`` (503). A background probe PINGs Valkey and returns to ``exact``;
counters Valkey lost are then reseeded from the ledger by the cold-counter path.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import structlog
from pydantic import TypeAdapter

from tollway_admission import (
    VALKEY_UNAVAILABLE,
    Admission,
    AdmitResult,
    Clock,
    PipelinedClient,
    Reservation,
    ValkeyClient,
    Window,
    drop_idle_connections,
    parse_valkey_url,
    utc_now,
    valkey_client,
)
from tollway_contracts.catalogue import Model, Prices
from tollway_contracts.limits import Limit
from tollway_contracts.pricing import cost_micro_usd
from tollway_edge.bounds import output_token_bound, prompt_token_bound
from tollway_edge.errors import EdgeError
from tollway_edge.local_limits import LocalLimiter, LocalReservation
from tollway_edge.metrics import ADMISSION_MODE, ADMISSION_REFUSED
from tollway_edge.principals import Principal

log = structlog.get_logger("tollway_edge.admission")

UNREACHABLE = VALKEY_UNAVAILABLE  # one node or a cluster
MODES = ("exact", "local", "refuse")
_LIMITS = TypeAdapter(list[Limit])
STREAM_TTL = timedelta(minutes=10)

_SCOPE_COLUMN = {"key": "key_id", "user": "user_id", "team": "team_id", "tenant": "tenant_id"}
SEED_SQL = (
    "SELECT coalesce(sum(cost_micro_usd), 0)::bigint FROM ledger.usage_records"
    " WHERE {column} = $1 AND ts_start >= $2 AND ts_start < $3{model}"
)


class SeedError(Exception):
    """The ledger could not be read to seed a cold budget counter."""


@dataclass(slots=True)
class Ticket:
    """One admitted call's reservation.

    Attributes:
        mode: ``exact`` (Valkey) or ``local`` (this process's memory).
        result: the admission result (headers, checks).
        prompt_tokens: the prompt bound reserved, tokens.
        reserved_out: completion tokens reserved so far (initial + extensions).
        ext_tokens, ext_cost: what extensions added (tokens, micro-USD).
        has_slot: a concurrency limit applied (release has work to do).
    """

    mode: str
    result: AdmitResult
    tenant_id: str
    request_id: str
    limits: list[Limit]
    model: str
    prices: Prices
    prompt_tokens: int
    reserved_out: int
    reservation: Reservation | None = None
    local: LocalReservation | None = None
    ext_tokens: int = 0
    ext_cost: int = 0
    has_slot: bool = False
    released: bool = False
    headers: dict[str, str] | None = None
    by_scope: dict[str, tuple[int, int]] | None = None

    def reservation_field(self) -> dict[str, dict[str, int]]:
        """The usage event's ``reservation``: per ``<scope>:<id>``, tokens
        (tpm scopes) and micro-USD (budget scopes) reserved, extensions included
        (``AdmitResult.reservation_by_scope()``, read once per call)."""
        if self.by_scope is None:
            self.by_scope = {
                n: (sr.tokens, sr.cost_micro_usd) for n, sr in self.result.reservation_by_scope().items()
            }
        return {
            name: {
                "tokens": tokens + self.ext_tokens if tokens else 0,
                "cost_micro_usd": cost + self.ext_cost if cost else 0,
            }
            for name, (tokens, cost) in self.by_scope.items()
        }


def _kind_error(result: AdmitResult) -> EdgeError:
    c = result.refused_by
    assert c is not None
    headers = result.headers()
    ADMISSION_REFUSED.labels(c.kind).inc()
    scope = f"{c.limit.scope} {c.limit.scope_id}" + (f" (model {c.limit.model})" if c.limit.model else "")
    if c.kind == "budget":
        return EdgeError(
            429,
            f"Budget exceeded for {scope}: {c.value} micro-USD per {c.limit.budget_period or 'month'}.",
            type="insufficient_quota",
            code="budget_exceeded",
            headers=headers,
        )
    what = {
        "requests": "requests per minute",
        "tokens": "tokens per minute",
        "concurrency": "concurrent calls",
    }[c.kind]
    return EdgeError(
        429,
        f"Rate limit reached for {what} on {scope}: limit {c.value}, used {c.used}, requested {c.requested}.",
        type=c.kind if c.kind != "concurrency" else "requests",
        code="rate_limit_exceeded",
        headers=headers,
    )


def unavailable() -> EdgeError:
    """503 while Valkey is unreachable in ``refuse`` mode."""
    return EdgeError(
        503,
        "Rate limiting is temporarily unavailable; retry shortly.",
        type="api_error",
        code="admission_unavailable",
    )


class EdgeAdmission:
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
        pool: returns the read-only asyncpg pool for seeding (or None).
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
        pool: Callable[[], asyncpg.Pool | None] = lambda: None,
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
        self._pool = pool
        self.clock = clock
        self.enabled = enabled
        self.local = LocalLimiter(expected_processes)
        self.client: ValkeyClient | None = None
        self.fast: PipelinedClient | None = None
        self.adm: Admission | None = None
        self.mode = "exact"
        self._probe: asyncio.Task[None] | None = None
        self._limits_cache: dict[tuple[str, int], list[Limit]] = {}
        self._set_gauge()

    # -- lifecycle -------------------------------------------------------------

    async def start(self) -> None:
        """Connect and load the scripts; an unreachable Valkey starts the process degraded."""
        if not self.enabled:
            return
        self.client = valkey_client(self._url, max_connections=self._max_connections, timeout=self._timeout)
        # Scripts (admit, extend, release) go over one pipelined connection:
        # far less CPU per call than the pool, and no pool to exhaust (one node; a cluster routes per slot).
        single = not parse_valkey_url(self._url).cluster
        self.fast = PipelinedClient(self._url, timeout=self._timeout) if self._pipelined and single else None
        self.adm = Admission(self.client, clock=self.clock, seed_provider=self._seed, pipelined=self.fast)
        try:
            await self.adm.load()
        except UNREACHABLE as exc:
            self._degrade("start", exc)

    async def stop(self) -> None:
        """Stop the probe and close the Valkey pool."""
        if self._probe is not None:
            self._probe.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._probe
        if self.fast is not None:
            self.fast.disconnect()
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.aclose()

    def _set_gauge(self) -> None:
        for m in MODES:
            ADMISSION_MODE.labels(m).set(1 if m == self.mode else 0)

    def _degrade(self, where: str, exc: BaseException | None = None) -> None:
        if self.mode != "exact":
            return
        self.mode = self.failure_mode
        self._set_gauge()
        log.warning("admission_degraded", mode=self.mode, where=where, error=repr(exc))
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
            self.mode = "exact"
            self._set_gauge()
            log.warning("admission_exact_again")
            return

    # -- helpers -----------------------------------------------------------------

    def limits_of(self, principal: Principal) -> list[Limit]:
        """The principal's limits, parsed once per principals version.

        Raises:
            EdgeError: 503 when the ``limits`` column is malformed (fail closed).
        """
        key = (principal.key_id, principal.version)
        cached = self._limits_cache.get(key)
        if cached is not None:
            return cached
        raw = principal.limits
        try:
            parsed = [] if raw is None else _LIMITS.validate_python(raw)
        except Exception:  # noqa: BLE001
            log.error("limits_malformed", key_id=principal.key_id, version=principal.version)
            raise EdgeError(
                503, "The key's limits cannot be read.", type="api_error", code="limits_invalid"
            ) from None
        if len(self._limits_cache) > 100_000:
            self._limits_cache.clear()
        self._limits_cache[key] = parsed
        return parsed

    async def _seed(self, limit: Limit, window: Window) -> int:
        """Seed provider: the ledger's spend for the limit's scope (and model) in the period, micro-USD.

        Raises:
            SeedError: no pool, or the query failed.
        """
        pool = self._pool()
        if pool is None:
            raise SeedError("no Postgres pool")
        column = _SCOPE_COLUMN[limit.scope]
        args: list[Any] = [limit.scope_id, window.start, window.end]
        model = ""
        if limit.model is not None:
            model = " AND model = $4"
            args.append(limit.model)
        try:
            value = await pool.fetchval(SEED_SQL.format(column=column, model=model), *args)
        except (asyncpg.PostgresError, OSError, asyncpg.InterfaceError, TimeoutError) as exc:
            raise SeedError(str(exc)) from exc
        log.info(
            "budget_seeded",
            scope=limit.scope,
            scope_id=limit.scope_id,
            spent_micro_usd=int(value),
            period_start=window.start.isoformat(),
        )
        return int(value)

    # -- the call ------------------------------------------------------------------

    async def admit(
        self,
        principal: Principal,
        model: str,
        entry: Model,
        body: dict[str, Any],
        request_id: str,
        stream: bool,
    ) -> Ticket | None:
        """Reserve the call's upper bound on every applicable limit.

        Returns:
            The ticket, or None when admission is disabled or no limit applies.

        Raises:
            EdgeError: 429 refused (OpenAI headers, ``Retry-After``); 503 when
                Valkey is unreachable in ``refuse`` mode, or a cold counter
                cannot be seeded and local mode is off.
        """
        if not self.enabled:
            return None
        limits = self.limits_of(principal)
        if not limits:
            return None
        prompt = prompt_token_bound(body)
        out = output_token_bound(body, entry.max_output_tokens)
        if stream:
            out = min(out, self.stream_allowance)
        tokens = prompt + out
        cost = cost_micro_usd(entry.prices, prompt_tokens=prompt, completion_tokens=out)
        tenant = principal.tenant_id
        ticket = Ticket("exact", None, tenant, request_id, limits, model, entry.prices, prompt, out)  # type: ignore[arg-type]
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
                )
            except UNREACHABLE as exc:
                self._degrade("admit", exc)
            except SeedError as exc:
                log.warning("budget_seed_failed", error=str(exc))
                if self.failure_mode != "local":
                    raise unavailable() from None
                return self._admit_local(ticket, tokens, cost)
            else:
                if result.status == "admitted":
                    ticket.result = result
                    ticket.reservation = result.reservation
                    ticket.has_slot = any(c.kind == "concurrency" for c in result.checks)
                    ticket.headers = result.headers()
                    return ticket
                if result.status == "refused":
                    raise _kind_error(result)
                log.error("admission_unexpected", status=result.status)
                raise unavailable()
        if self.mode == "refuse":
            raise unavailable()
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
            raise _kind_error(result)
        ticket.mode = "local"
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
            except UNREACHABLE as exc:
                self._degrade("extend", exc)
            else:
                if ok:
                    ticket.ext_tokens += tokens
                    ticket.ext_cost += cost
                    ticket.reserved_out += tokens
                return ok
        if self.mode == "refuse":
            return False
        _, extra = self.local.admit(
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
        if ticket.local is None:
            ticket.local = extra
        else:
            LocalLimiter.merge(ticket.local, extra)
        ticket.ext_tokens += tokens
        ticket.ext_cost += cost
        ticket.reserved_out += tokens
        return True

    async def release(self, ticket: Ticket) -> None:
        """Give back the concurrency slot (once; errors are logged, settlement releases too)."""
        if ticket.released or not ticket.has_slot:
            return
        ticket.released = True
        if ticket.mode == "local":
            if ticket.local is not None:
                self.local.release(ticket.local)
            return
        if self.mode != "exact" or self.adm is None:
            return
        try:
            await self.adm.release(
                tenant_id=ticket.tenant_id, request_id=ticket.request_id, reservation=ticket.reservation
            )
        except UNREACHABLE as exc:
            self._degrade("release", exc)
        except Exception:
            log.warning("release_failed", request_id=ticket.request_id, exc_info=True)

    def finish(self, ticket: Ticket, tokens: int | None, cost: int | None) -> None:
        """At the terminal event: local reservations are settled with the actuals
        here (exact ones are settled by quota from the usage event)."""
        if ticket.local is not None and tokens is not None and cost is not None:
            self.local.settle(ticket.local, tokens, cost)

    def now(self) -> datetime:
        """The admission clock's reading."""
        return self.clock()
