"""Usage extraction and usage-event building (pure), following
tollway_contracts.events (schema v1).

Events are built as plain dicts and serialised with orjson (no pydantic on
the hot path); ``tests/unit/test_usage.py`` checks that what is built is
accepted by the strict producer model ``UsageEvent``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from tollway_contracts.catalogue import Prices
from tollway_contracts.pricing import cost_micro_usd
from tollway_edge.ids import uuid4_str


@dataclass(slots=True)
class Tokens:
    """Token counts in OpenAI's meaning (prompt includes cached; completion
    includes reasoning)."""

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    reasoning_tokens: int
    total_tokens: int

    def cost(self, prices: Prices) -> int:
        """Cost in micro-USD (tollway_contracts.pricing), rounded up per call."""
        return cost_micro_usd(
            prices,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cached_tokens=min(self.cached_tokens, self.prompt_tokens),
        )


def _count(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


def extract_usage(usage: Any) -> Tokens | None:
    """Read an OpenAI ``usage`` object.

    ``cached_tokens`` comes from ``prompt_tokens_details.cached_tokens`` and
    ``reasoning_tokens`` from ``completion_tokens_details.reasoning_tokens``;
    missing or malformed counts read as 0.

    Returns:
        The tokens, or None when ``usage`` is not an object.
    """
    if type(usage) is not dict:
        return None
    prompt = _count(usage.get("prompt_tokens"))
    completion = _count(usage.get("completion_tokens"))
    pdetails = usage.get("prompt_tokens_details")
    cdetails = usage.get("completion_tokens_details")
    cached = _count(pdetails.get("cached_tokens")) if type(pdetails) is dict else 0
    reasoning = _count(cdetails.get("reasoning_tokens")) if type(cdetails) is dict else 0
    total = usage.get("total_tokens")
    return Tokens(
        prompt,
        completion,
        cached,
        reasoning,
        total if type(total) is int and total >= 0 else prompt + completion,
    )


def build_event(
    type_: str,
    *,
    request_id: str,
    ts_start: str,
    ts_end: str | None,
    tenant_id: str,
    team_id: str | None,
    user_id: str | None,
    key_id: str,
    model: str,
    stream: bool,
    provider: str | None = None,
    upstream_model: str | None = None,
    status_code: int | None = None,
    error_type: str | None = None,
    attempts: int = 0,
    tokens: Tokens | None = None,
    cost: int | None = None,
    latency_ms: float | None = None,
    ttft_ms: float | None = None,
    overhead_ms: float | None = None,
    reservation: dict[str, dict[str, int]] | None = None,
    redaction: Any = None,
) -> bytes:
    """One usage event v1 as JSON bytes.

    Args:
        type_: ``started``, ``completed`` or ``failed``.
        ts_start, ts_end: RFC 3339 UTC with microseconds (``format_ts``);
            ``ts_end`` is None on ``started``.
        tokens, cost: None on ``started`` and when the provider reported no usage.
        latency_ms, ttft_ms, overhead_ms: milliseconds.
        reservation: per ``<scope>:<id>``, ``{"tokens", "cost_micro_usd"}``
            reserved by admission (None when no limit applied).
        redaction: the call's ``RedactionSummary`` (None when redaction is off).
    """
    event: dict[str, Any] = {
        "schema_version": 1,
        "type": type_,
        "event_id": uuid4_str(),
        "request_id": request_id,
        "tenant_id": tenant_id,
        "team_id": team_id,
        "user_id": user_id,
        "key_id": key_id,
        "ts_start": ts_start,
        "ts_end": ts_end,
        "model": model,
        "provider": provider,
        "upstream_model": upstream_model,
        "stream": stream,
        "status_code": status_code,
        "error_type": error_type,
        "attempts": attempts,
        "prompt_tokens": None,
        "completion_tokens": None,
        "cached_tokens": None,
        "reasoning_tokens": None,
        "total_tokens": None,
        "cost_micro_usd": cost,
        "reservation": reservation or None,
        "latency_ms": None if latency_ms is None else round(max(latency_ms, 0.0), 3),
        "ttft_ms": None if ttft_ms is None else round(max(ttft_ms, 0.0), 3),
        "overhead_ms": None if overhead_ms is None else round(max(overhead_ms, 0.0), 3),
        "redaction": None if redaction is None else redaction.model_dump(mode="json"),
        "trace_id": None,
    }
    if tokens is not None:
        event["prompt_tokens"] = tokens.prompt_tokens
        event["completion_tokens"] = tokens.completion_tokens
        event["cached_tokens"] = tokens.cached_tokens
        event["reasoning_tokens"] = tokens.reasoning_tokens
        event["total_tokens"] = tokens.total_tokens
    return orjson.dumps(event)
