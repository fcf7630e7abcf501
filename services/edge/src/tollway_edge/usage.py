"""Usage extraction and usage-event building (pure), with the contract's one
definition of usage event v1 (``tollway_contracts.events.UsageEvent``, a
msgspec Struct) and its strict encoder.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import ScopeReservation, UsageEvent, encode_usage_event
from tollway_contracts.pricing import cost_micro_usd


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

    Raises:
        msgspec.ValidationError: a value breaks the contract (a bug here).
    """
    return encode_usage_event(
        UsageEvent(
            type=type_,  # type: ignore[arg-type]  # the caller passes one of the EventType literals
            request_id=uuid.UUID(request_id),
            tenant_id=tenant_id,
            team_id=team_id,
            user_id=user_id,
            key_id=key_id,
            ts_start=datetime.fromisoformat(ts_start),
            ts_end=None if ts_end is None else datetime.fromisoformat(ts_end),
            model=model,
            provider=provider,
            upstream_model=upstream_model,
            stream=stream,
            status_code=status_code,
            error_type=error_type,
            attempts=attempts,
            prompt_tokens=None if tokens is None else tokens.prompt_tokens,
            completion_tokens=None if tokens is None else tokens.completion_tokens,
            cached_tokens=None if tokens is None else tokens.cached_tokens,
            reasoning_tokens=None if tokens is None else tokens.reasoning_tokens,
            total_tokens=None if tokens is None else tokens.total_tokens,
            cost_micro_usd=cost,
            reservation=(
                {
                    name: ScopeReservation(tokens=r["tokens"], cost_micro_usd=r["cost_micro_usd"])
                    for name, r in reservation.items()
                }
                if reservation
                else None
            ),
            latency_ms=None if latency_ms is None else round(max(latency_ms, 0.0), 3),
            ttft_ms=None if ttft_ms is None else round(max(ttft_ms, 0.0), 3),
            overhead_ms=None if overhead_ms is None else round(max(overhead_ms, 0.0), 3),
            redaction=redaction,
        )
    )
