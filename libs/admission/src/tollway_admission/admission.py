"""The Python face of the admission scripts (``lua/*.lua``).

:class:`Admission` wraps one single-node client (our
:class:`~tollway_admission.node.NodeClient`, or redis-py's ``redis.asyncio.Redis``)
or redis-py's ``RedisCluster`` (a cluster: each script touches one tenant's hash slot).
Scripts are loaded once (``SCRIPT LOAD`` in :meth:`Admission.load`, or lazily) and always called with
``EVALSHA``; a ``NOSCRIPT`` reply (Valkey restarted or failed over) reloads
the script and retries once.

Lifecycle of one call (DESIGN.md, "Reservations"):

1. ``admit`` — one round trip: every applicable limit of every scope is
   checked and reserved on, or none is. A refusal carries the refusing limit,
   ``Retry-After`` and OpenAI's ``x-ratelimit-*`` headers.
2. ``extend`` — a stream reserves more on the same counters, all or nothing.
3. ``release`` — when the response ends, the concurrency slot is given back,
   once.
4. ``settle`` — the actual tokens and cost replace the reservation on every
   counter, exactly once per request id (also releases the slot).
5. Reservations never settled pass their deadline: their slot is pruned by
   the next admit on that scope, and :meth:`Admission.list_expired` lists them
   for reconciliation against the ledger (then ``settle`` with the ledger's
   actuals, or zero if the call never reached a provider).

Cold budget counters (the seeding protocol):

- Only ``seed.lua`` creates a budget counter. When admit finds the counter of
  the current period missing it reserves nothing and answers ``seed``, naming
  the missing counters.
- The wrapper then asks a *seed provider* (``async (limit, window) -> spent
  micro-USD``, normally the ledger's spend for that scope and period), writes
  the value with ``seed.lua`` — create-if-absent, so among any number of
  concurrent callers exactly one value is written and nothing recorded since
  is overwritten — and runs admit again (at most ``seed_attempts`` times).
- Within one process, concurrent callers needing the same counter share one
  provider call; across processes the create-if-absent write decides.
- Without a provider, admit returns ``status == "seed_needed"`` with
  :attr:`AdmitResult.seeds_needed`; the caller seeds (:meth:`Admission.seed`)
  and retries itself.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any, Literal, cast

import msgspec
import orjson

from tollway_admission import keys as K
from tollway_admission.errors import is_noscript
from tollway_admission.periods import Clock, Window, period_window, utc_now
from tollway_admission.pipelined import PipelinedClient, pack, pack_bulk
from tollway_admission.plan import CheckKind, plan
from tollway_admission.plan import applicable as applicable  # re-exported: its old home
from tollway_admission.prepared import LUA_KIND as _LUA_KIND
from tollway_admission.prepared import PlanCache
from tollway_admission.urls import ValkeyClient, is_cluster_client
from tollway_contracts.events import ScopeReservation
from tollway_contracts.limits import Limit

Outcome = Literal["fits", "refuses", "would_refuse", "seed_needed"]
SeedProvider = Callable[[Limit, Window], Awaitable[int]]
"""``async (limit, period window) -> spent micro-USD`` for that scope and period."""

_OUTCOMES: dict[int, Outcome] = {0: "fits", 1: "refuses", 2: "would_refuse", 3: "seed_needed"}
_STATUSES: dict[str, Literal["refused", "seed_needed"]] = {"refused": "refused", "seed": "seed_needed"}
_SEED_MEMORY_SECONDS = 1.0
# limit kinds with OpenAI rate-limit headers; the kind is the headers' suffix
# (x-ratelimit-{limit,remaining,reset}-{requests,tokens})
_HEADER_KINDS = ("requests", "tokens")


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


class _Script:
    def __init__(self, name: str) -> None:
        self.name = name
        self.source = resources.files("tollway_admission").joinpath(f"lua/{name}.lua").read_text()
        self.sha = hashlib.sha1(self.source.encode()).hexdigest()


ADMIT, EXTEND, RELEASE, SETTLE, SEED, WRITEBACK = (
    _Script(n) for n in ("admit", "extend", "release", "settle", "seed", "writeback")
)
SCRIPTS = (ADMIT, EXTEND, RELEASE, SETTLE, SEED, WRITEBACK)


class LimitCheck(msgspec.Struct, frozen=True, gc=False):
    """One limit as admit saw it (immutable; built positionally or by keyword, in
    this order: a frozen ``msgspec.Struct``, ~0.1 µs to build where a frozen
    dataclass took ~1 µs, four per call; ``gc=False``: it holds no container
    that could close a reference cycle).

    Attributes:
        limit: the :class:`Limit` it comes from.
        kind: ``requests`` (rpm), ``tokens`` (tpm), ``concurrency`` or ``budget``.
        key: the Valkey counter.
        value: the limit (calls per minute, tokens per minute, slots, micro-USD).
        used: the counter before this call (calls, tokens, slots, micro-USD
            spent + reserved).
        requested: what this call asked of it (1 call, tokens, 1 slot, micro-USD).
        remaining: what is left after this call if it was admitted, else
            before it; never negative.
        reset_seconds: until the window or period ends (seconds, float);
            concurrency: 1.0 (a slot frees when any call ends).
        outcome: ``fits``, ``refuses``, ``would_refuse`` (shadow limit) or
            ``seed_needed``.
    """

    limit: Limit
    kind: CheckKind
    key: str
    value: int
    used: int
    requested: int
    remaining: int
    reset_seconds: float
    outcome: Outcome

    @property
    def shadow(self) -> bool:
        """True when the limit only reports (``Limit.shadow``)."""
        return self.limit.shadow


class SeedRequest(msgspec.Struct, frozen=True, gc=False):
    """A budget counter admit found missing for the current period.

    Attributes:
        limit: the budget limit.
        window: the period (UTC) the counter covers.
        key: the counter's key.
        expire_at_ms: when the counter should expire (period end + grace).
    """

    limit: Limit
    window: Window
    key: str
    expire_at_ms: int


class Reservation(msgspec.Struct, frozen=True, gc=False):
    """Handle for a reservation: enough to extend/release it in one round trip
    (immutable, a frozen ``msgspec.Struct`` as :class:`LimitCheck`).

    Attributes:
        tenant_id, request_id: identity.
        counter_keys: the record's counters (``c`` list order).
        tokens: tokens reserved so far.
        cost_micro_usd: micro-USD reserved so far.
    """

    tenant_id: str
    request_id: str
    counter_keys: tuple[str, ...]
    tokens: int
    cost_micro_usd: int


class AdmitResult(msgspec.Struct, frozen=True):
    """What admit decided (immutable, a frozen ``msgspec.Struct`` as :class:`LimitCheck`).

    Attributes:
        status: ``admitted``, ``refused``, ``duplicate`` (this request id was
            already admitted or settled; nothing reserved) or ``seed_needed``
            (a budget counter is cold and no seed provider was given).
        request_id: the call's id.
        checks: every applicable limit, in order.
        reservation: handle when admitted.
        seeds_needed: the cold budget counters (``seed_needed`` only).
        now: the clock reading the decision was made at.
    """

    status: Literal["admitted", "refused", "duplicate", "seed_needed"]
    request_id: str
    checks: tuple[LimitCheck, ...]
    reservation: Reservation | None = None
    seeds_needed: tuple[SeedRequest, ...] = ()
    now: datetime = msgspec.field(default_factory=utc_now)

    @property
    def admitted(self) -> bool:
        """True when reserved on every limit."""
        return self.status == "admitted"

    @property
    def refused_by(self) -> LimitCheck | None:
        """The first enforced limit that refused, or None."""
        return next((c for c in self.checks if c.outcome == "refuses"), None)

    @property
    def would_refuse(self) -> tuple[LimitCheck, ...]:
        """Shadow limits that would have refused this call (it was not refused for them)."""
        return tuple(c for c in self.checks if c.outcome == "would_refuse")

    @property
    def retry_after_seconds(self) -> int | None:
        """``Retry-After`` (whole seconds, >= 1) when refused: the longest wait
        among the refusing limits; None otherwise."""
        refusing = [c.reset_seconds for c in self.checks if c.outcome == "refuses"]
        if not refusing:
            return None
        return max(1, math.ceil(max(refusing)))

    def headers(self) -> dict[str, str]:
        """OpenAI's rate-limit headers from the tightest enforced rpm and tpm
        limits, plus ``Retry-After`` when refused.

        ``x-ratelimit-{limit,remaining,reset}-{requests,tokens}``; resets in
        OpenAI's duration format (``"20ms"``, ``"1s"``, ``"6m0s"``). Absent
        kinds are omitted.
        """
        # the first enforced check of each kind with the least (remaining, value)
        tightest: dict[str, LimitCheck] = {}
        for c in self.checks:
            if c.kind in _HEADER_KINDS and not c.limit.shadow:
                best = tightest.get(c.kind)
                if best is None or (c.remaining, c.value) < (best.remaining, best.value):
                    tightest[c.kind] = c
        out: dict[str, str] = {}
        for kind in _HEADER_KINDS:
            check = tightest.get(kind)
            if check is not None:
                out[f"x-ratelimit-limit-{kind}"] = str(check.value)
                out[f"x-ratelimit-remaining-{kind}"] = str(check.remaining)
                out[f"x-ratelimit-reset-{kind}"] = openai_duration(check.reset_seconds)
        retry_after = self.retry_after_seconds
        if retry_after is not None:
            out["Retry-After"] = str(retry_after)
        return out

    def reservation_by_scope(self) -> dict[str, ScopeReservation]:
        """The usage event's ``reservation`` field: per scope (``<scope>:<id>``),
        tokens reserved on its tpm limits and micro-USD on its budgets."""
        out: dict[str, ScopeReservation] = {}
        if not self.admitted:
            return out
        for c in self.checks:
            if c.kind not in ("tokens", "budget"):
                continue
            name = f"{c.limit.scope}:{c.limit.scope_id}"
            prev = out.get(name, ScopeReservation())
            if c.kind == "tokens":
                prev = ScopeReservation(
                    tokens=max(prev.tokens, c.requested), cost_micro_usd=prev.cost_micro_usd
                )
            else:
                prev = ScopeReservation(
                    tokens=prev.tokens, cost_micro_usd=max(prev.cost_micro_usd, c.requested)
                )
            out[name] = prev
        return out


@dataclass(frozen=True, slots=True)
class ExtendResult:
    """What extend decided.

    Attributes:
        status: ``extended``, ``refused`` (a tpm or budget limit would be
            exceeded; nothing reserved), ``settled``, ``unknown``, ``expired``.
        tokens, cost_micro_usd: the reservation's totals after the call.
        refused_keys: counters whose enforced limit refused.
        would_refuse_keys: counters whose shadow limit would have refused.
    """

    status: Literal["extended", "refused", "settled", "unknown", "expired"]
    tokens: int
    cost_micro_usd: int
    refused_keys: tuple[str, ...] = ()
    would_refuse_keys: tuple[str, ...] = ()

    @property
    def extended(self) -> bool:
        """True when the extra amounts were reserved."""
        return self.status == "extended"


@dataclass(frozen=True, slots=True)
class SettleResult:
    """What settle did.

    Attributes:
        status: ``settled`` (this call settled it, finally or provisionally),
            ``settled_late`` (a final settle replaced a provisional one: the
            difference was added to the counters), ``already_settled`` (an
            earlier call did; nothing changed), ``unknown`` (no record).
        reserved_tokens, reserved_cost_micro_usd: what was reserved (for
            ``already_settled``: the actuals settled then; for
            ``settled_late``: the provisional amounts replaced).
        slot_released: this call released the concurrency slot.
    """

    status: Literal["settled", "settled_late", "already_settled", "unknown"]
    reserved_tokens: int
    reserved_cost_micro_usd: int
    slot_released: bool


@dataclass(frozen=True, slots=True)
class ExpiredReservation:
    """An unsettled reservation past its deadline, to reconcile with the ledger.

    Attributes:
        tenant_id, request_id: identity (the ledger's ``request_id``).
        deadline: when it expired (UTC).
        tokens, cost_micro_usd: still reserved on its counters.
    """

    tenant_id: str
    request_id: str
    deadline: datetime
    tokens: int
    cost_micro_usd: int


@dataclass(frozen=True, slots=True)
class BudgetUsage:
    """A budget counter as read by :meth:`Admission.budget_usage`.

    Attributes:
        spent_micro_usd: settled spend in the period (seeded from the ledger,
            plus every settlement since), micro-USD.
        reserved_micro_usd: reserved by calls not settled yet, micro-USD.
        start, end: the period ``[start, end)``, UTC (calendar period in the
            limit's time zone).
    """

    spent_micro_usd: int
    reserved_micro_usd: int
    start: datetime
    end: datetime


def openai_duration(seconds: float) -> str:
    """Format a reset time like OpenAI's headers: ``"250ms"``, ``"1s"``, ``"6m0s"``, ``"1h0m0s"``."""
    if seconds < 1:
        return f"{max(0, math.ceil(seconds * 1000))}ms"
    total = math.ceil(seconds)
    h, rem = divmod(total, 3600)
    m, s = divmod(rem, 60)
    if h:
        return f"{h}h{m}m{s}s"
    if m:
        return f"{m}m{s}s"
    return f"{s}s"


class Admission:
    """Admission, extension, release, settlement and seeding of reservations.

    Args:
        client: :class:`~tollway_admission.node.NodeClient`,
            ``redis.asyncio.Redis`` or ``RedisCluster`` (bytes or decoded
            responses; :func:`tollway_admission.valkey_client` builds the right
            one from a URL). On a cluster every script's keys share the
            tenant's hash slot, so redis-py routes each call to one node.
        clock: returns the current aware datetime; minute windows, budget
            periods and deadlines all derive from it.
        reservation_ttl: default time a reservation holds before it expires
            (slot freed, listed for reconciliation); streams push it with
            ``extend(..., ttl=...)``.
        record_retention: how long a record outlives its deadline, so a late
            settlement or reconciliation still refunds exactly.
        settled_ttl: lifetime of the settled marker; must exceed
            ``reservation_ttl + record_retention`` so a record never outlives
            the protection against settling twice.
        budget_grace: how long a budget counter outlives its period (late
            settlements of calls admitted in it land on it).
        seed_provider: default provider for cold budget counters.
        seed_attempts: seed rounds per :meth:`admit` call (>= 1); after
            them a still-cold counter returns ``seed_needed``.
        pipelined: when given, every script runs through this
            :class:`~tollway_admission.pipelined.PipelinedClient` (one
            pipelined connection, hiredis, one packed write per EVALSHA)
            instead of ``client``'s pool; ``client`` still serves the other
            reads (record keys, budget usage, reconciliation). Same scripts,
            same semantics; its errors are :mod:`tollway_admission.errors`'
            (``NOSCRIPT`` is recognised from either family).

    Raises:
        ValueError: ``settled_ttl`` too short.
    """

    def __init__(
        self,
        client: ValkeyClient,
        *,
        clock: Clock = utc_now,
        reservation_ttl: timedelta = timedelta(minutes=10),
        record_retention: timedelta = timedelta(days=1),
        settled_ttl: timedelta = timedelta(days=3),
        budget_grace: timedelta = timedelta(days=2),
        seed_provider: SeedProvider | None = None,
        seed_attempts: int = 3,
        pipelined: PipelinedClient | None = None,
    ) -> None:
        if settled_ttl <= reservation_ttl + record_retention:
            raise ValueError("settled_ttl must exceed reservation_ttl + record_retention")
        self._r = client
        self._clock = clock
        self._ttl = reservation_ttl
        self._retention = record_retention
        self._settled_ttl_ms = int(settled_ttl.total_seconds() * 1000)
        self._budget_grace = budget_grace
        self._seed_provider = seed_provider
        self._seed_attempts = max(1, seed_attempts)
        self._seeding: dict[str, asyncio.Future[int]] = {}
        self._fast = pipelined
        self._plans = PlanCache(budget_grace)  # checks and packed KEYS/ARGV per key, per window
        self._admit_heads: dict[int, bytes] = {}  # admit's packed command head per count of checks

    # -- scripts -----------------------------------------------------------

    async def load(self) -> None:
        """``SCRIPT LOAD`` every script (call once at start; optional, since
        a NOSCRIPT reply loads lazily)."""
        for s in SCRIPTS:
            sha = await self._r.script_load(s.source)
            if _s(sha) != s.sha:  # pragma: no cover - would mean a broken server
                raise RuntimeError(f"SCRIPT LOAD of {s.name} returned {sha!r}, expected {s.sha}")

    async def _eval_packed(self, fast: PipelinedClient, script: _Script, packed: bytes) -> Any:
        """``EVALSHA`` already packed (:func:`pack_bulk`) over the pipelined client; a
        ``NOSCRIPT`` reply loads the script and retries once, as :meth:`_eval`."""
        try:
            return await fast.execute_packed(packed)
        except Exception as exc:  # NOSCRIPT from our clients or redis-py's
            if not is_noscript(exc):
                raise
            await fast.execute("SCRIPT", "LOAD", script.source)
            return await fast.execute_packed(packed)

    async def _eval(self, script: _Script, keys: Sequence[str], args: Sequence[Any]) -> Any:
        fast = self._fast
        if fast is not None:
            try:
                return await fast.evalsha(script.sha, keys, args)
            except Exception as exc:  # NOSCRIPT from our clients or redis-py's
                if not is_noscript(exc):
                    raise
                await fast.execute("SCRIPT", "LOAD", script.source)
                return await fast.evalsha(script.sha, keys, args)
        try:
            return await self._r.evalsha(script.sha, len(keys), *keys, *args)
        except Exception as exc:  # NOSCRIPT from our clients or redis-py's
            if not is_noscript(exc):
                raise
            await self._r.script_load(script.source)
            return await self._r.evalsha(script.sha, len(keys), *keys, *args)

    # -- admit -------------------------------------------------------------

    async def admit(
        self,
        *,
        tenant_id: str,
        request_id: str,
        limits: Sequence[Limit],
        model: str | None = None,
        tokens: int = 0,
        cost_micro_usd: int = 0,
        ttl: timedelta | None = None,
        seed_provider: SeedProvider | None = None,
    ) -> AdmitResult:
        """Reserve one call on every applicable limit, or on none (admit.lua).

        One round trip when the counters are warm; a cold budget counter adds
        a seed round (see the module doc).

        Args:
            tenant_id: the call's tenant (the hash tag of every key).
            request_id: the call's id (``x-request-id``); one reservation per id.
            limits: the key's effective limits (every scope); those narrowed
                to another model are ignored.
            model: the requested model.
            tokens: tokens to reserve against tpm limits (prompt estimate +
                ``max_tokens`` or the model's output cap).
            cost_micro_usd: micro-USD to reserve against budgets (those tokens, priced).
            ttl: reservation lifetime (default: ``reservation_ttl``).
            seed_provider: overrides the default provider for this call.

        Returns:
            :class:`AdmitResult`.

        Raises:
            ValueError: negative amounts, or a tenant id unusable as a hash tag.
            ValkeyError (:mod:`tollway_admission.errors`) or redis-py's RedisError: Valkey unreachable or failing (the
                edge fails closed).
        """
        if tokens < 0 or cost_micro_usd < 0:
            raise ValueError("tokens and cost_micro_usd must be >= 0")
        provider = seed_provider or self._seed_provider
        attempt = 0
        while True:
            attempt += 1
            result = await self._admit_once(tenant_id, request_id, limits, model, tokens, cost_micro_usd, ttl)
            if result.status != "seed_needed" or provider is None or attempt > self._seed_attempts:
                return result
            await self._seed_from(tenant_id, result.seeds_needed, provider)

    async def _admit_once(
        self,
        tenant_id: str,
        request_id: str,
        limits: Sequence[Limit],
        model: str | None,
        tokens: int,
        cost: int,
        ttl: timedelta | None,
    ) -> AdmitResult:
        now = self._clock()
        prepared = self._plans.get(tenant_id, limits, model, now)
        deadline = now + (ttl if ttl is not None else self._ttl)
        record_key = K.record_key(tenant_id, request_id)
        settled_key = K.settled_key(tenant_id, request_id)
        call_args = (request_id, _ms(now), _ms(deadline), _ms(deadline + self._retention), tokens, cost)
        rows = prepared.rows
        fast = self._fast
        if fast is not None:  # the constant parts come packed (``prepared``)
            n = len(rows)
            head = self._admit_heads.get(n)
            if head is None:  # the array's length, EVALSHA, the sha and the key count, per count of checks
                head = b"*%d\r\n" % (3 + 3 + n + 7 + 4 * n) + pack_bulk(("EVALSHA", ADMIT.sha, 3 + n))
                self._admit_heads[n] = head
            packed = b"".join(
                (
                    head,
                    pack_bulk((record_key, settled_key)),
                    prepared.deadlines_keys_tail,
                    pack_bulk(call_args),
                    prepared.count_args_tail,
                )
            )
            raw = await self._eval_packed(fast, ADMIT, packed)
        else:
            keys = [record_key, settled_key, K.deadlines_key(tenant_id)]
            args: list[Any] = [*call_args, len(rows)]
            for kind, lim, value, key, _reset, _w, expire in prepared.checks:
                keys.append(key)
                args += [_LUA_KIND[kind], value, "1" if lim.shadow else "0", expire]
            raw = await self._eval(ADMIT, keys, args)
        status = _s(raw[0])
        if status == "duplicate":
            return AdmitResult("duplicate", request_id, (), now=now)
        admitted = status == "admitted"
        checks: list[LimitCheck] = []
        seeds: list[SeedRequest] = []
        amounts = (1, tokens, 1, cost)  # per kind: prepared.rows' amount index
        outcomes = _OUTCOMES
        for (kind, lim, value, key, end, w, expire, ai), u, f in zip(rows, raw[1], raw[2], strict=True):
            u = int(u)
            f = int(f)
            req = amounts[ai]
            remaining = value - u - req if admitted else value - u
            reset = 1.0 if end is None else (end - now).total_seconds()  # plan's rule, at ``now``
            checks.append(
                LimitCheck(
                    lim, kind, key, value, u, req, remaining if remaining > 0 else 0, reset, outcomes[f]
                )
            )
            if f == 3 and w is not None:
                seeds.append(SeedRequest(lim, w, key, expire))
        if admitted:
            reservation = Reservation(tenant_id, request_id, prepared.counter_keys, tokens, cost)
            return AdmitResult("admitted", request_id, tuple(checks), reservation, tuple(seeds), now)
        st = _STATUSES[status]  # KeyError: a status admit.lua does not answer
        return AdmitResult(st, request_id, tuple(checks), None, tuple(seeds), now)

    # -- seeding -----------------------------------------------------------

    async def _seed_from(self, tenant_id: str, needed: Sequence[SeedRequest], provider: SeedProvider) -> None:
        values = await asyncio.gather(*(self._provide(s, provider) for s in needed))
        await self.seed(tenant_id, [(s.key, v, s.expire_at_ms) for s, v in zip(needed, values, strict=True)])

    async def _provide(self, s: SeedRequest, provider: SeedProvider) -> int:
        # One provider call per counter per process at a time; concurrent
        # callers await the same future.
        fut = self._seeding.get(s.key)
        if fut is not None:
            return await asyncio.shield(fut)
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._seeding[s.key] = fut
        try:
            value = int(await provider(s.limit, s.window))
        except BaseException as exc:
            self._seeding.pop(s.key, None)
            if isinstance(exc, asyncio.CancelledError):
                fut.cancel()
            else:
                fut.set_exception(exc)
                fut.exception()  # retrieved: waiters re-raise it, nobody else must
            raise
        fut.set_result(value)
        # Keep the value a moment: callers whose admit saw the cold counter
        # just before the seed landed reuse it instead of querying the ledger
        # again (the write is create-if-absent, so a reused value can never
        # overwrite anything).
        # (Valkey lost in that moment: ``forget_seeds``.)
        loop.call_later(_SEED_MEMORY_SECONDS, self._forget_seed, s.key, fut)
        return value

    def forget_seeds(self) -> None:
        """Drop the seed values kept for reuse (``_SEED_MEMORY_SECONDS``).

        Call when Valkey was found unreachable (the edge does, when admission
        degrades): a kept value predates the outage, and reusing it for a
        counter lost with Valkey would recreate the counter WITHOUT the spend
        made during the split (issue 10: seen in
        ``test_budget_across_valkey_restart`` when the restart came within the
        second after a seed). Seeds in flight are left to finish.
        """
        for key, fut in list(self._seeding.items()):
            if fut.done():
                del self._seeding[key]

    def _forget_seed(self, key: str, fut: asyncio.Future[int]) -> None:
        if self._seeding.get(key) is fut:  # not a later seed's value
            del self._seeding[key]

    async def seed(self, tenant_id: str, seeds: Sequence[tuple[str, int, int]]) -> list[bool]:
        """Create missing budget counters (seed.lua, create-if-absent).

        Args:
            tenant_id: the tenant every key belongs to.
            seeds: ``(counter key, spent micro-USD, expire at epoch ms)``,
                keys as given in :attr:`SeedRequest.key`.

        Returns:
            Per counter, True if this call created it.

        Raises:
            ValueError: a key of another tenant, or a negative amount.
        """
        if not seeds:
            return []
        pfx = K.prefix(tenant_id)
        for key, spent, _ in seeds:
            if not key.startswith(pfx + "budget:") or spent < 0:
                raise ValueError(f"not a budget counter of {tenant_id!r}, or negative spend: {key!r}")
        now_ms = _ms(self._clock())
        args: list[Any] = []
        for _key, spent, expire in seeds:
            args += [spent, max(1, expire - now_ms)]
        raw = await self._eval(SEED, [k for k, _, _ in seeds], args)
        return [int(x) == 1 for x in raw]

    async def seed_budget(
        self, tenant_id: str, limit: Limit, spent_micro_usd: int, at: datetime | None = None
    ) -> bool:
        """Create the counter of a budget limit for the period containing
        ``at`` (default: now, from the clock) if missing (seed.lua,
        create-if-absent; quota seeds cold counters on an edge's request and
        may pre-warm). Returns True if this call created it.

        Raises:
            ValueError: the limit has no budget, or a negative amount.
        """
        now = at or self._clock()
        budgets = [
            c
            for c in plan(tenant_id, [limit], limit.model, now, budget_grace=self._budget_grace)
            if c.kind == "budget"
        ]
        if not budgets:
            raise ValueError("the limit has no budget")
        return (await self.seed(tenant_id, [(budgets[0].key, spent_micro_usd, budgets[0].expire_at_ms)]))[0]

    async def write_back(
        self,
        tenant_id: str,
        writeback_id: str,
        spent: Sequence[tuple[str, int]],
        *,
        valkey_kept_data: bool,
    ) -> bool:
        """Add budget spend made in local mode to the counters, once per
        ``writeback_id`` (writeback.lua; the merge rule is in its header and
        the README, "Local mode and write-back").

        Args:
            writeback_id: ``<process id>:<split id>:<seq>``; retrying with the
                same id changes nothing.
            spent: ``(budget counter key, micro-USD spent locally)``.
            valkey_kept_data: the Valkey epoch is the one seen before the
                split (:class:`tollway_admission.registry.EdgeRegistry`):
                add to the counters that exist. False: add nothing (the
                counters are seeded from the ledger, which has the calls).

        Returns:
            True if this call applied the id, False if it had been applied.

        Raises:
            ValueError: a key of another tenant, or a negative amount.
            ValkeyError or redis-py's RedisError: transient; retry with the same id.
        """
        pfx = K.prefix(tenant_id)
        for key, amount in spent:
            if not key.startswith(pfx + "budget:") or amount < 0:
                raise ValueError(f"not a budget counter of {tenant_id!r}, or negative spend: {key!r}")
        ttl_ms = int(self._budget_grace.total_seconds() * 1000) + 31 * 86_400_000
        keys = [K.writeback_key(tenant_id, writeback_id), *(k for k, _ in spent)]
        args: list[Any] = [ttl_ms, "add" if valkey_kept_data else "skip", *(a for _, a in spent)]
        raw = await self._eval(WRITEBACK, keys, args)
        return _s(raw[0]) == "written"

    # -- extend / release / settle -------------------------------------------

    async def _record_keys(self, tenant_id: str, request_id: str) -> list[str]:
        raw = await self._r.hget(K.record_key(tenant_id, request_id), "c")
        if raw is None:
            return []
        c = orjson.loads(raw)
        return [e[1] for e in c] if isinstance(c, list) else []

    def _base_keys(self, tenant_id: str, request_id: str) -> list[str]:
        return [
            K.record_key(tenant_id, request_id),
            K.settled_key(tenant_id, request_id),
            K.deadlines_key(tenant_id),
        ]

    async def _with_counters(
        self,
        script: _Script,
        tenant_id: str,
        request_id: str,
        args: Sequence[Any],
        reservation: Reservation | None,
        stale: Callable[[Any], bool],
    ) -> Any:
        base = self._base_keys(tenant_id, request_id)
        if reservation is not None:
            raw = await self._eval(script, base + list(reservation.counter_keys), args)
            if not stale(raw):
                return raw
        counters = await self._record_keys(tenant_id, request_id)
        return await self._eval(script, base + counters, args)

    async def extend(
        self,
        *,
        tenant_id: str,
        request_id: str,
        tokens: int = 0,
        cost_micro_usd: int = 0,
        ttl: timedelta | None = None,
        reservation: Reservation | None = None,
    ) -> ExtendResult:
        """Reserve ``tokens`` and ``cost_micro_usd`` more for a reservation
        (extend.lua), on the counters it was admitted on, all or nothing.

        Args:
            ttl: when given, the new deadline is now + ttl (streams keep
                their slot alive this way).
            reservation: the handle from admit saves a round trip.

        Returns:
            :class:`ExtendResult`; ``refused`` means the edge ends the stream.

        Raises:
            ValueError: negative amounts.
        """
        if tokens < 0 or cost_micro_usd < 0:
            raise ValueError("tokens and cost_micro_usd must be >= 0")
        now = self._clock()
        new_deadline = _ms(now + ttl) if ttl is not None else 0
        new_expire = _ms(now + ttl + self._retention) if ttl is not None else 0
        args = [_ms(now), tokens, cost_micro_usd, new_deadline, new_expire, request_id]
        raw = await self._with_counters(
            EXTEND, tenant_id, request_id, args, reservation, lambda r: _s(r[0]) == "stale"
        )
        status = _s(raw[0])
        if status == "stale":  # pragma: no cover - the record changed between two reads
            raise RuntimeError("reservation record changed under extend")
        flags = [int(f) for f in raw[1]]
        counters = (
            list(reservation.counter_keys)
            if reservation is not None and len(reservation.counter_keys) == len(flags)
            else await self._record_keys(tenant_id, request_id)
            if flags
            else []
        )
        # Not strict: a record deleted between the script and the read of
        # its counters yields no keys to name (the status already says so).
        refused = tuple(k for k, f in zip(counters, flags, strict=False) if f == 1)
        would = tuple(k for k, f in zip(counters, flags, strict=False) if f == 2)
        return ExtendResult(status, int(raw[2]), int(raw[3]), refused, would)  # type: ignore[arg-type]

    async def release(
        self, *, tenant_id: str, request_id: str, reservation: Reservation | None = None
    ) -> bool:
        """Give back the reservation's concurrency slots, once (release.lua).

        Returns:
            True if this call released them; False if already released,
            settled, unknown, or no concurrency limit applied.
        """
        raw = await self._with_counters(
            RELEASE, tenant_id, request_id, [request_id], reservation, lambda r: int(r) == -1
        )
        return int(raw) == 1

    async def settle(
        self,
        *,
        tenant_id: str,
        request_id: str,
        tokens: int,
        cost_micro_usd: int,
        provisional: bool = False,
    ) -> SettleResult:
        """Replace the reservation by the actuals on every counter, exactly once
        per request id (settle.lua). Also releases the slot if still held.

        Args:
            tokens: actual total tokens (prompt + completion).
            cost_micro_usd: actual cost, micro-USD (the usage event's ``cost_micro_usd``).
            provisional: reconciliation without the call's terminal ledger row
                (its usage event may still come): settle with these amounts
                now, but let one later final settle (the late usage event)
                replace them by the difference (settle.lua's merge rule; the
                late settle answers ``settled_late``, any repeat
                ``already_settled``).

        Returns:
            :class:`SettleResult`; ``already_settled`` changes nothing.

        Raises:
            ValueError: negative amounts.
        """
        if tokens < 0 or cost_micro_usd < 0:
            raise ValueError("tokens and cost_micro_usd must be >= 0")
        args = [request_id, tokens, cost_micro_usd, self._settled_ttl_ms, "1" if provisional else "0"]
        raw = None
        for _ in range(3):
            raw = await self._with_counters(
                SETTLE, tenant_id, request_id, args, None, lambda r: _s(r[0]) == "stale"
            )
            if _s(raw[0]) != "stale":
                break
        assert raw is not None
        status = _s(raw[0])
        if status == "stale":  # pragma: no cover
            raise RuntimeError("reservation record changed under settle")
        return SettleResult(status, int(raw[1]), int(raw[2]), int(raw[3]) == 1)  # type: ignore[arg-type]

    async def settle_many(
        self, items: Sequence[tuple[str, str, int, int]]
    ) -> list[SettleResult | ValueError]:
        """Settle many reservations in two pipelined round trips (settle.lua,
        the same script and the same once-per-request-id marker as
        :meth:`settle`); through the ``pipelined`` client when given (one
        packed write per round, replies parsed by hiredis: a fraction of
        redis-py's pipeline CPU per item), else redis-py's pipeline.

        Round 1 reads every record's counter list (``HGET c``, pipelined);
        round 2 runs one ``EVALSHA settle`` per item (a non-transactional
        pipeline; on a cluster, concurrent calls routed per tenant: each script is atomic and idempotent on its own, so a batch
        interrupted half-way and run again settles each id once). An item
        whose record changed between the two rounds (``stale``) falls back to
        :meth:`settle`.

        Args:
            items: ``(tenant_id, request_id, actual tokens, actual cost micro-USD)``.

        Returns:
            One entry per item, in order: a :class:`SettleResult`, or the
            ``ValueError`` for an item that cannot be settled (negative
            amounts, unusable tenant id); the other items are settled anyway.

        Raises:
            ValkeyError or redis-py's RedisError: transient; some items may have been
                settled — calling again with the same items changes them no more.
        """
        out: list[SettleResult | ValueError | None] = [None] * len(items)
        todo: list[tuple[int, list[str], list[Any]]] = []
        for i, (tenant_id, request_id, tokens, cost) in enumerate(items):
            try:
                if tokens < 0 or cost < 0:
                    raise ValueError("tokens and cost_micro_usd must be >= 0")
                base = self._base_keys(tenant_id, request_id)
            except ValueError as exc:
                out[i] = exc
                continue
            todo.append((i, base, [request_id, tokens, cost, self._settled_ttl_ms]))
        if todo:
            if self._fast is not None:
                raws = await self._fast.execute_many([pack(("HGET", base[0], "c")) for _, base, _ in todo])
            else:
                async with self._r.pipeline(transaction=False) as p:
                    for _, base, _ in todo:
                        p.hget(base[0], "c")
                    raws = await p.execute()
            calls: list[tuple[int, list[str], list[Any]]] = []
            for (i, base, args), raw in zip(todo, raws, strict=True):
                c = orjson.loads(raw) if raw is not None else []
                counters = [e[1] for e in c] if isinstance(c, list) else []
                calls.append((i, base + counters, args))
            replies = await self._evalsha_many(SETTLE, calls)
            for (i, _, _), raw in zip(calls, replies, strict=True):
                if _s(raw[0]) == "stale":  # pragma: no cover - record changed between the rounds
                    tenant_id, request_id, tokens, cost = items[i]
                    out[i] = await self.settle(
                        tenant_id=tenant_id, request_id=request_id, tokens=tokens, cost_micro_usd=cost
                    )
                else:
                    out[i] = SettleResult(_s(raw[0]), int(raw[1]), int(raw[2]), int(raw[3]) == 1)  # type: ignore[arg-type]
        return out  # type: ignore[return-value]

    async def _evalsha_many(
        self, script: _Script, calls: Sequence[tuple[int, Sequence[str], Sequence[Any]]]
    ) -> list[Any]:
        """One pipeline of ``EVALSHA`` calls; on ``NOSCRIPT`` the script is
        loaded and the whole pipeline sent again (it had run nothing).

        On a cluster (redis-py's ``ClusterPipeline`` refuses scripts) the calls
        run concurrently instead, each routed to its tenant's node; each is
        atomic and idempotent on its own, so the result is the same.
        """
        if is_cluster_client(self._r):
            cluster = self._r

            async def one(keys: Sequence[str], args: Sequence[Any]) -> Any:
                try:
                    return await cluster.evalsha(script.sha, len(keys), *keys, *args)
                except Exception as exc:  # NOSCRIPT from our clients or redis-py's
                    if not is_noscript(exc):
                        raise
                    await cluster.script_load(script.source)
                    return await cluster.evalsha(script.sha, len(keys), *keys, *args)

            return list(await asyncio.gather(*(one(keys, args) for _, keys, args in calls)))
        fast = self._fast
        if fast is not None:
            packed = [pack(("EVALSHA", script.sha, len(keys), *keys, *args)) for _, keys, args in calls]
            for attempt in range(2):
                try:
                    return await fast.execute_many(packed)
                except Exception as exc:  # NOSCRIPT from our clients or redis-py's
                    if not is_noscript(exc):
                        raise
                    if attempt:
                        raise
                    await fast.execute("SCRIPT", "LOAD", script.source)
        for attempt in range(2):
            async with self._r.pipeline(transaction=False) as p:
                for _, keys, args in calls:
                    p.evalsha(script.sha, len(keys), *keys, *args)
                try:
                    return await p.execute()
                except Exception as exc:  # NOSCRIPT from our clients or redis-py's
                    if not is_noscript(exc):
                        raise
                    if attempt:
                        raise
                    await self._r.script_load(script.source)
        raise AssertionError("unreachable")  # pragma: no cover

    # -- reading -------------------------------------------------------------

    async def budget_usage(
        self, tenant_id: str, limit: Limit, at: datetime | None = None
    ) -> BudgetUsage | None:
        """Read the budget counter of ``limit`` for the period containing ``at``
        (default: now, from the clock). One ``HMGET``; changes nothing.

        A budget without a period is read as monthly, as admit does.

        Returns:
            :class:`BudgetUsage`, or None when the counter does not exist
            (never seeded, or expired ``budget_grace`` after its period).

        Raises:
            ValueError: ``limit`` has no budget, or the tenant id is unusable.
        """
        if limit.budget_micro_usd is None:
            raise ValueError("the limit has no budget")
        if limit.budget_period is None:
            limit = limit.replace(budget_period="month")
        w = period_window(limit.budget_period, limit.time_zone, at or self._clock())  # type: ignore[arg-type]
        spent, reserved = await self._r.hmget(
            K.budget_key(tenant_id, limit, int(w.start.timestamp())), "spent", "reserved"
        )
        if spent is None:
            return None
        return BudgetUsage(int(spent), int(reserved or 0), w.start, w.end)

    # -- reconciliation ------------------------------------------------------

    async def list_expired(self, tenant_id: str, *, limit: int = 1000) -> list[ExpiredReservation]:
        """Unsettled reservations of a tenant past their deadline, oldest first.

        Reconcile each against the ledger: ``settle`` with the ledger's actual
        tokens and cost for that ``request_id`` (zero if the ledger shows the
        call never reached a provider). Index entries whose record is gone
        (older than ``record_retention``) are dropped here.
        """
        idx = K.deadlines_key(tenant_id)
        now_ms = _ms(self._clock())
        # withscores=True: (member, score) pairs (redis-py types the union of every form).
        rows = cast(
            "list[tuple[bytes | str, float]]",
            await self._r.zrangebyscore(idx, "-inf", now_ms, start=0, num=limit, withscores=True),
        )
        if not rows:
            return []
        async with self._r.pipeline(transaction=False) as p:
            for rid, _ in rows:
                p.hmget(K.record_key(tenant_id, _s(rid)), "tokens", "cost", "deadline")
            recs = await p.execute()
        out: list[ExpiredReservation] = []
        gone: list[str] = []
        for (rid, _score), rec in zip(rows, recs, strict=True):
            if rec[0] is None:
                gone.append(_s(rid))
                continue
            out.append(
                ExpiredReservation(
                    tenant_id,
                    _s(rid),
                    datetime.fromtimestamp(int(rec[2]) / 1000, UTC),
                    int(rec[0]),
                    int(rec[1]),
                )
            )
        if gone:
            await self._r.zrem(idx, *gone)
        return out

    async def tenants_with_reservations(self) -> list[str]:
        """Tenant ids that have a deadline index (a SCAN; for reconciliation sweeps)."""
        out: list[str] = []
        async for key in self._r.scan_iter(match=K.DEADLINES_SCAN_PATTERN, count=500):
            k = _s(key)
            out.append(k[len("tw:{") : k.index("}:")])
        return out


def _ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)
