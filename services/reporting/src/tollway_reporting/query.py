"""Pure query building: request parameters -> validated query -> SQL.

No I/O here. Every SQL statement is built by :func:`usage_sql` or
:func:`top_sql`, and both take the caller's :class:`Scope`: a tenant-scoped
caller ALWAYS gets ``tenant_id = <its tenant>`` in the WHERE clause (the
service's first invariant), whatever the parameters say; asking for another
tenant is a :class:`QueryError` 403.

Time ranges are half-open ``[start, end)`` in UTC and must fall on bucket
boundaries of the granularity (a rollup bucket is either wholly in or out;
a misaligned bound would silently report part of a bucket as a whole).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

GRANULARITIES: dict[str, str] = {
    "hour": "ledger.v_usage_hourly",
    "day": "ledger.v_usage_daily",
    "month": "ledger.v_usage_monthly",
}
# Longest range per granularity, to bound a query's cost (rows scanned).
MAX_RANGE: dict[str, timedelta] = {
    "hour": timedelta(days=93),
    "day": timedelta(days=3 * 366),
    "month": timedelta(days=20 * 366),
}
# API dimension name -> view column.
DIMENSIONS: dict[str, str] = {"tenant": "tenant_id", "team": "team_id", "key": "key_id", "model": "model"}
FILTERS: tuple[str, ...] = ("tenant_id", "team_id", "key_id", "model")
METRICS: tuple[str, ...] = (
    "requests",
    "errors",
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "reasoning_tokens",
    "total_tokens",
    "cost_micro_usd",
)
LATENCY_COLUMNS: tuple[str, ...] = ("latency_ms_avg", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms")
TOP_METRICS: tuple[str, ...] = ("cost_micro_usd", "total_tokens", "requests")
_BUCKETS = (
    "latency_le_50, latency_le_100, latency_le_250, latency_le_500, latency_le_1000, "
    "latency_le_2500, latency_le_5000, latency_le_10000, latency_le_30000, latency_le_60000, latency_le_inf"
)
_BUCKET_SUMS = ", ".join(f"sum({b.strip()})" for b in _BUCKETS.split(","))


class QueryError(Exception):
    """A request the API refuses; ``status`` 400 (bad parameter) or 403 (another
    tenant's data). ``message`` is safe to show; ``param`` names the parameter."""

    def __init__(
        self, message: str, param: str | None = None, *, status: int = 400, code: str = "invalid_parameter"
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.status = status
        self.code = code


@dataclass(frozen=True, slots=True)
class Scope:
    """Who is asking. ``tenant_id`` None means the admin token: every tenant.
    ``token_id`` is the reporting token's public id (logs), None for admin."""

    tenant_id: str | None
    token_id: str | None = None

    @property
    def is_admin(self) -> bool:
        """True for the admin token (no tenant restriction)."""
        return self.tenant_id is None


@dataclass(frozen=True, slots=True)
class UsageQuery:
    """``GET /v1/reporting/usage``: metrics per bucket and group.

    Attributes:
        start, end: UTC, half-open, aligned to ``granularity``.
        granularity: ``hour`` | ``day`` | ``month`` (picks the rollup view).
        group_by: API dimension names, in the caller's order, no repeats.
        filters: view column -> required value (``tenant_id``, ``team_id``,
            ``key_id``, ``model``).
    """

    start: datetime
    end: datetime
    granularity: str
    group_by: tuple[str, ...] = ()
    filters: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TopQuery:
    """``GET /v1/reporting/top``: the top ``limit`` values of dimension ``by``
    ranked by ``metric`` (descending) over ``[start, end)``; ``granularity``
    is the coarsest rollup both bounds are aligned to."""

    start: datetime
    end: datetime
    granularity: str
    by: str
    metric: str = "cost_micro_usd"
    limit: int = 10
    filters: Mapping[str, str] = field(default_factory=dict)


def parse_time(value: str | None, param: str) -> datetime:
    """Parse an ISO 8601 timestamp WITH an offset (``Z`` allowed) or a date
    (``YYYY-MM-DD`` = midnight UTC) to an aware UTC datetime.

    Raises:
        QueryError: missing, malformed, or without a UTC offset.
    """
    if not value:
        raise QueryError(f"the {param} parameter is required", param)
    try:
        if len(value) == 10:
            d = date.fromisoformat(value)
            return datetime(d.year, d.month, d.day, tzinfo=UTC)
        # An unencoded "+" in a query string arrives as a space.
        ts = datetime.fromisoformat(value.replace(" ", "+"))
    except ValueError as exc:
        raise QueryError(f"{param} is not an ISO 8601 timestamp or date", param) from exc
    if ts.tzinfo is None:
        raise QueryError(f"{param} needs a UTC offset (e.g. 2026-11-01T00:00:00Z)", param)
    return ts.astimezone(UTC)


def is_aligned(ts: datetime, granularity: str) -> bool:
    """True when ``ts`` (UTC) is the start of an hour/day/month bucket."""
    ts = ts.astimezone(UTC)
    if ts.minute or ts.second or ts.microsecond:
        return False
    if granularity == "hour":
        return True
    if ts.hour:
        return False
    return granularity == "day" or ts.day == 1


def _range(params: Mapping[str, str], granularity: str) -> tuple[datetime, datetime]:
    start = parse_time(params.get("start"), "start")
    end = parse_time(params.get("end"), "end")
    if end <= start:
        raise QueryError("end must be after start", "end")
    for name, ts in (("start", start), ("end", end)):
        if not is_aligned(ts, granularity):
            raise QueryError(
                f"{name} must fall on a UTC {granularity} boundary for granularity={granularity}", name
            )
    if end - start > MAX_RANGE[granularity]:
        raise QueryError(
            f"range too long for granularity={granularity} (at most {MAX_RANGE[granularity].days} days)",
            "end",
        )
    return start, end


def _filters(params: Mapping[str, str]) -> dict[str, str]:
    return {name: params[name] for name in FILTERS if params.get(name)}


def parse_usage_query(params: Mapping[str, str]) -> UsageQuery:
    """Validate ``/usage`` parameters: ``start``, ``end``, ``granularity``
    (default ``day``), ``group_by`` (comma-separated of tenant, team, key,
    model), filters ``tenant_id``, ``team_id``, ``key_id``, ``model``.

    Raises:
        QueryError: 400 on any invalid parameter.
    """
    granularity = params.get("granularity") or "day"
    if granularity not in GRANULARITIES:
        raise QueryError("granularity must be one of hour, day, month", "granularity")
    start, end = _range(params, granularity)
    group_by: list[str] = []
    for raw in (params.get("group_by") or "").split(","):
        name = raw.strip()
        if not name:
            continue
        if name not in DIMENSIONS:
            raise QueryError(f"group_by accepts {', '.join(DIMENSIONS)}; got {name!r}", "group_by")
        if name not in group_by:
            group_by.append(name)
    return UsageQuery(start, end, granularity, tuple(group_by), _filters(params))


def coarsest_granularity(start: datetime, end: datetime) -> str | None:
    """The coarsest of month/day/hour both bounds are aligned to, or None."""
    for granularity in ("month", "day", "hour"):
        if is_aligned(start, granularity) and is_aligned(end, granularity):
            return granularity
    return None


def parse_top_query(params: Mapping[str, str]) -> TopQuery:
    """Validate ``/top`` parameters: ``by`` (tenant|team|key|model), ``start``,
    ``end`` (hour-aligned at least), ``metric`` (cost_micro_usd |
    total_tokens | requests), ``limit`` (1..1000, default 10), filters.

    Raises:
        QueryError: 400 on any invalid parameter.
    """
    by = params.get("by") or ""
    if by not in DIMENSIONS:
        raise QueryError(f"by must be one of {', '.join(DIMENSIONS)}", "by")
    metric = params.get("metric") or "cost_micro_usd"
    if metric not in TOP_METRICS:
        raise QueryError(f"metric must be one of {', '.join(TOP_METRICS)}", "metric")
    try:
        limit = int(params.get("limit") or 10)
    except ValueError as exc:
        raise QueryError("limit must be an integer", "limit") from exc
    if not 1 <= limit <= 1000:
        raise QueryError("limit must be between 1 and 1000", "limit")
    start = parse_time(params.get("start"), "start")
    end = parse_time(params.get("end"), "end")
    granularity = coarsest_granularity(start, end) or "hour"
    start, end = _range(params, granularity)
    return TopQuery(start, end, granularity, by, metric, limit, _filters(params))


def scoped_filters(scope: Scope, filters: Mapping[str, str]) -> dict[str, str]:
    """The filters to apply for ``scope``: a tenant-scoped caller always gets its
    own ``tenant_id``.

    Raises:
        QueryError: 403 when a tenant-scoped caller names another tenant.
    """
    out = dict(filters)
    if scope.tenant_id is not None:
        asked = out.get("tenant_id")
        if asked is not None and asked != scope.tenant_id:
            raise QueryError(
                "this token may read only its own tenant", "tenant_id", status=403, code="tenant_forbidden"
            )
        out["tenant_id"] = scope.tenant_id
    return out


def _where(scope: Scope, start: datetime, end: datetime, filters: Mapping[str, str]) -> tuple[str, list[Any]]:
    args: list[Any] = [start, end]
    conds = ["bucket_start >= $1", "bucket_start < $2"]
    effective = scoped_filters(scope, filters)
    if scope.tenant_id is not None and effective.get("tenant_id") != scope.tenant_id:
        raise AssertionError("tenant scope lost")  # never build an unscoped tenant query
    for column, value in sorted(effective.items()):
        args.append(value)
        conds.append(f"{column} = ${len(args)}")
    return " AND ".join(conds), args


LATENCY_BOUNDS_MS: tuple[float, ...] = (50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000)
QUANTILES: tuple[float, ...] = (0.50, 0.95, 0.99)


def latency_quantile(q: float, counts: Sequence[int]) -> float | None:
    """The q-quantile (0..1) of latency in ms from the ledger's NON-cumulative
    histogram ``counts`` (``le_50`` … ``le_60000``, ``le_inf``).

    Exactly the rule of the SQL function ``ledger.latency_quantile`` (ledger
    migration 0003; tests check they agree), computed here because a plpgsql
    call per result group costs ~30 µs: linear interpolation in the bucket that
    holds rank ``q * total`` (lower bound of the first bucket 0); a rank in
    the +inf bucket gives 60000. None without counts or with q outside 0..1.
    """
    total = sum(counts)
    if total == 0 or not 0 <= q <= 1:
        return None
    rank = q * total
    cum = 0
    lo = 0.0
    for i, c in enumerate(counts):
        if c > 0 and cum + c >= rank:
            if i >= len(LATENCY_BOUNDS_MS):
                return LATENCY_BOUNDS_MS[-1]
            return lo + (LATENCY_BOUNDS_MS[i] - lo) * ((rank - cum) / c)
        cum += c
        if i < len(LATENCY_BOUNDS_MS):
            lo = LATENCY_BOUNDS_MS[i]
    return LATENCY_BOUNDS_MS[-1]


def finish_rows(rows: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    """Rows from :func:`usage_sql`/:func:`top_sql` (last column: the summed
    histogram) to output rows (last columns: p50, p95, p99 in ms)."""
    return [(*row[:-1], *(latency_quantile(q, row[-1]) for q in QUANTILES)) for row in rows]


def _metric_exprs() -> list[str]:
    exprs = [f"sum({m})::bigint AS {m}" for m in METRICS]
    exprs.append(
        "CASE WHEN sum(latency_count) > 0 THEN sum(latency_ms_sum) / sum(latency_count) END AS latency_ms_avg"
    )
    exprs.append(f"ARRAY[{_BUCKET_SUMS}]::bigint[] AS latency_buckets")
    return exprs


def usage_columns(q: UsageQuery) -> list[str]:
    """Output columns of a usage query, in order: ``bucket_start``, the group
    columns, :data:`METRICS`, :data:`LATENCY_COLUMNS`."""
    return ["bucket_start", *(DIMENSIONS[d] for d in q.group_by), *METRICS, *LATENCY_COLUMNS]


def usage_sql(scope: Scope, q: UsageQuery, max_rows: int) -> tuple[str, list[Any]]:
    """SQL and arguments for a usage query; returns up to ``max_rows + 1`` rows
    (one more than allowed, so the caller can tell the result was cut), to
    pass through :func:`finish_rows`."""
    where, args = _where(scope, q.start, q.end, q.filters)
    dims = [DIMENSIONS[d] for d in q.group_by]
    keys = ", ".join(["bucket_start", *dims])
    sql = (
        f"SELECT {keys}, {', '.join(_metric_exprs())}\n"
        f"FROM {GRANULARITIES[q.granularity]}\nWHERE {where}\n"
        f"GROUP BY {keys}\nORDER BY {', '.join(f'{k} NULLS FIRST' for k in ['bucket_start', *dims])}\n"
        f"LIMIT {int(max_rows) + 1}"
    )
    return sql, args


def top_columns(q: TopQuery) -> list[str]:
    """Output columns of a top query: the dimension column, then :data:`METRICS`
    and :data:`LATENCY_COLUMNS`."""
    return [DIMENSIONS[q.by], *METRICS, *LATENCY_COLUMNS]


def top_sql(scope: Scope, q: TopQuery) -> tuple[str, list[Any]]:
    """SQL and arguments for a top-N query (ties broken by the dimension value);
    pass the rows through :func:`finish_rows`."""
    where, args = _where(scope, q.start, q.end, q.filters)
    dim = DIMENSIONS[q.by]
    sql = (
        f"SELECT {dim}, {', '.join(_metric_exprs())}\n"
        f"FROM {GRANULARITIES[q.granularity]}\nWHERE {where}\n"
        f"GROUP BY {dim}\nORDER BY {q.metric} DESC, {dim} NULLS FIRST\nLIMIT {int(q.limit)}"
    )
    return sql, args
