"""One call's state (one per HTTP request): who, what, where it went, what
it cost. The call builds its own usage events and settles and releases its
own admission, so every path (refusal, answer, stream, cut, crash) meters
the same way (DESIGN.md "Usage event", "Reservations").
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import msgspec

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import (
    AttemptDetail,
    EventType,
    RedactionSummary,
    UsageEvent,
    encode_usage_event,
)
from tollway_contracts.redaction import AppliedLanguagePolicy, RedactionPolicy
from tollway_edge.admission import EdgeAdmission, Ticket
from tollway_edge.auth.principals import Principal
from tollway_edge.journal import UsageJournal
from tollway_edge.metrics import USAGE_ESTIMATED
from tollway_edge.usage import Tokens

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

CLIENT_CLOSED = 499
"""nginx's convention for a client that went away; in metrics and events only."""


class Call:
    """Per-call bookkeeping.

    Tracing (``tollway_edge.tracing``): ``tracer`` is None when off; when on,
    ``span`` is the call's server span, ``trace_id`` its trace id and
    ``trace_context`` its W3C context for the journal.

    Times are ``time.perf_counter()`` seconds; ``upstream_wait`` sums the time
    spent waiting on the provider (connect, headers, body reads), so
    ``overhead_ms`` is the edge's own time.

    Args:
        journal: where usage events go (None: metrics only, e.g. health checks).
        admission: the admission adapter settling and releasing ``ticket``.
    """

    __slots__ = (
        "_journal",
        "_admission",
        "request_uuid",
        "request_id",
        "t0",
        "ts_start",
        "upstream_wait",
        "principal",
        "model",
        "stream",
        "provider",
        "upstream_model",
        "deployment",
        "attempt_details",
        "catalogue_version",
        "response_cache_hit",
        "cache_status",
        "attempts",
        "status",
        "error_type",
        "ttft",
        "terminal_sent",
        "started_sent",
        "ticket",
        "sent_tokens",
        "usage_estimated",
        "redaction",
        "redaction_mapping",
        "redaction_policy",
        "redaction_language_policy",
        "tracer",
        "span",
        "trace_id",
        "trace_context",
        "metered",
        "upstream_span",
        "recovery",
        "_progress_due",
    )

    def __init__(
        self,
        journal: UsageJournal | None = None,
        admission: EdgeAdmission | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        self._journal = journal
        self._admission = admission
        self.request_uuid = uuid.UUID(bytes=os.urandom(16), version=4)
        self.request_id = str(self.request_uuid)  # x-request-id, the Kafka key, logs
        self.t0 = time.perf_counter()
        self.ts_start = datetime.now(UTC)  # identical in every event of the call
        self.upstream_wait = 0.0
        self.principal: Principal | None = None
        self.model: str | None = None
        self.stream = False
        self.provider: str | None = None
        self.upstream_model: str | None = None
        self.deployment: str | None = None  # the catalogue deployment tried last (the one that answered)
        self.attempt_details: list[AttemptDetail] | None = None  # one per provider attempt (routing.forward)
        self.catalogue_version: str | None = None  # the catalogue whose prices bill the call
        self.response_cache_hit = False  # answered from the exact response cache (``tollway_edge.cache``)
        self.cache_status: str | None = None  # x-tollway-cache: "hit" | "miss"; None = the cache was not used
        self.attempts = 0
        self.status = 0
        self.error_type: str | None = None
        self.ttft: float | None = None
        self.terminal_sent = False
        self.started_sent = False
        self.ticket: Ticket | None = None
        self.sent_tokens = 0  # completion tokens received from the provider's stream so far
        self.usage_estimated = False  # the terminal event's tokens are the edge's estimate
        self.redaction: RedactionSummary | None = None  # on every event of the call
        self.redaction_mapping: dict[str, str] | None = None  # reversible mode only; never logged
        self.redaction_policy: RedactionPolicy | None = None  # None when off
        self.redaction_language_policy: AppliedLanguagePolicy | None = None  # strictest of the texts
        self.tracer = tracer  # None when tracing is off (``tollway_edge.tracing``)
        self.span: Span | None = None  # the server span, when tracing is on
        self.trace_id: str | None = None  # 32 hex digits; in the events and the log line
        self.trace_context = b""  # W3C context for the journal (Kafka record headers)
        self.metered = True  # False: no usage event at all (count_tokens: a metric only)
        self.upstream_span: Span | None = None  # a relayed stream's provider attempt span, until it ends
        # (prompt estimate, prices): journaled with `started` so an adopter can bill the call if
        # this process dies before its terminal event (``journal.recovery``); None: not recoverable
        self.recovery: tuple[Callable[[], int], Prices] | None = None
        self._progress_due = 0.0  # time.monotonic() from which the next progress checkpoint may go

    def elapsed_ms(self) -> float:
        """Wall time since the call arrived, ms."""
        return (time.perf_counter() - self.t0) * 1000.0

    def overhead_ms(self) -> float:
        """The edge's own time so far (wall time minus waiting on the provider), ms."""
        return max(self.elapsed_ms() - self.upstream_wait * 1000.0, 0.0)

    def ttft_ms(self) -> float | None:
        """Time to the provider's first byte, ms (None before it)."""
        return None if self.ttft is None else (self.ttft - self.t0) * 1000.0

    # -- metering ----------------------------------------------------------------

    def started(self) -> None:
        """Emit ``started`` once, just before the first provider attempt (with the open checkpoint)."""
        if not self.started_sent:
            self.started_sent = True
            self._emit("started")

    def progress(self) -> None:
        """Journal the completion tokens relayed so far (``sent_tokens``), at most once per
        ``progress_interval_ms`` (a local record, never shipped): what an adopter bills
        if this process dies mid-stream (``journal.recovery``). Cheap when not due."""
        if self._progress_due and self._journal is not None:
            now = time.monotonic()
            if now >= self._progress_due:
                self._progress_due = now + self._journal.settings.progress_interval_ms / 1000
                key = self.request_id.encode()
                self._journal.append(
                    key, self._journal.open_calls.progress(key, self.sent_tokens), local=True
                )

    def completed(self, status: int, tokens: Tokens | None = None, cost: int | None = None) -> None:
        """Emit the terminal ``completed`` event (once) with the provider's usage."""
        self.status = status
        self._emit("completed", tokens, cost)

    def fail(
        self, status: int, error_type: str | None, tokens: Tokens | None = None, cost: int | None = None
    ) -> None:
        """Emit the terminal ``failed`` event (once): a refusal after
        authentication, a provider error, a stream that did not finish."""
        self.status = status
        self.error_type = error_type
        self._emit("failed", tokens, cost)

    def _emit(self, type_: EventType, tokens: Tokens | None = None, cost: int | None = None) -> bytes | None:
        """Build this call's usage event v1 (``tollway_contracts.events.UsageEvent``,
        the contract's one definition) and append it to the journal, encoded by
        the contract's strict encoder; returns the encoded event (None: none). The
        terminal event settles a local admission reservation with the actuals first."""
        p = self.principal
        if p is None or self._journal is None or not self.metered:
            return None  # unauthenticated or unmetered: metrics only, never an event
        ticket = self.ticket
        if type_ == "started":
            event = UsageEvent(
                type=type_,
                request_id=self.request_uuid,
                tenant_id=p.tenant_id,
                team_id=p.team_id,
                user_id=p.user_id,
                key_id=p.key_id,
                ts_start=self.ts_start,
                model=self.model or "unknown",
                provider=self.provider,
                upstream_model=self.upstream_model,
                deployment=self.deployment,
                catalogue_version=self.catalogue_version,
                stream=self.stream,
                attempts=self.attempts,
                reservation=None if ticket is None else ticket.reservation_field() or None,
                redaction=self.redaction,
                redaction_language_policy=self.redaction_language_policy,
                shadow_refusals=None if ticket is None else ticket.shadow_refusals,
                trace_id=self.trace_id,
            )
        else:
            if self.terminal_sent:
                return None
            self.terminal_sent = True
            if self._progress_due:  # registered as open (``journal.recovery``)
                self._progress_due = 0.0
                self._journal.open_calls.closed(self.request_id.encode())
            if ticket is not None and self._admission is not None:
                self._admission.finish(ticket, None if tokens is None else tokens.total_tokens, cost)
            ttft = self.ttft_ms()
            event = UsageEvent(
                type=type_,
                request_id=self.request_uuid,
                tenant_id=p.tenant_id,
                team_id=p.team_id,
                user_id=p.user_id,
                key_id=p.key_id,
                ts_start=self.ts_start,
                ts_end=datetime.now(UTC),
                model=self.model or "unknown",
                provider=self.provider,
                upstream_model=self.upstream_model,
                deployment=self.deployment,
                attempt_details=self._details(tokens, cost),
                catalogue_version=self.catalogue_version,
                response_cache_hit=self.response_cache_hit,
                stream=self.stream,
                status_code=self.status,
                error_type=self.error_type,
                attempts=self.attempts,
                prompt_tokens=None if tokens is None else tokens.prompt_tokens,
                completion_tokens=None if tokens is None else tokens.completion_tokens,
                cached_tokens=None if tokens is None else tokens.cached_tokens,
                cache_write_tokens=None if tokens is None else tokens.cache_write_tokens,
                reasoning_tokens=None if tokens is None else tokens.reasoning_tokens,
                total_tokens=None if tokens is None else tokens.total_tokens,
                cost_micro_usd=cost,
                usage_estimated=self.usage_estimated and tokens is not None,
                reservation=None if ticket is None else ticket.reservation_field() or None,
                latency_ms=round(self.elapsed_ms(), 3),
                ttft_ms=None if ttft is None else round(max(ttft, 0.0), 3),
                overhead_ms=round(self.overhead_ms(), 3),
                redaction=self.redaction,
                redaction_language_policy=self.redaction_language_policy,
                shadow_refusals=None if ticket is None else ticket.shadow_refusals,
                trace_id=self.trace_id,
            )
        if self.span is not None and type_ != "started":
            self._trace_outcome(tokens, cost)
        value = encode_usage_event(event)
        key, checkpoint, journal = self.request_id.encode(), b"", self._journal
        if type_ == "started" and self.recovery is not None:  # what an adopter bills: in the same record
            checkpoint = journal.open_calls.opened(key, value, self.recovery[0](), self.recovery[1])
            self._progress_due = time.monotonic() + journal.settings.progress_interval_ms / 1000
        journal.append(key, value, self.trace_context, checkpoint=checkpoint)
        if event.usage_estimated:
            USAGE_ESTIMATED.labels(self.error_type or "none").inc()
        return value

    def _trace_outcome(self, tokens: Tokens | None, cost: int | None) -> None:
        """The terminal outcome on the server span (GenAI conventions; no text)."""
        span = self.span
        assert span is not None
        p = self.principal
        attrs: dict[str, str | int | bool] = {
            "tollway.request_id": self.request_id,
            "tollway.attempts": self.attempts,
            "tollway.stream": self.stream,
        }
        if p is not None:
            attrs["tollway.tenant_id"] = p.tenant_id
            attrs["tollway.key_id"] = p.key_id
        if self.provider is not None:
            attrs["tollway.provider"] = self.provider
        if self.upstream_model is not None:
            attrs["gen_ai.response.model"] = self.upstream_model
        if tokens is not None:
            attrs["gen_ai.usage.input_tokens"] = tokens.prompt_tokens
            attrs["gen_ai.usage.output_tokens"] = tokens.completion_tokens
        if cost is not None:
            attrs["tollway.cost_micro_usd"] = cost
        if self.error_type is not None:
            attrs["error.type"] = self.error_type
        span.set_attributes(attrs)

    def _details(self, tokens: Tokens | None, cost: int | None) -> list[AttemptDetail] | None:
        """The attempts, the last one (the deployment that answered, the only
        one that produced usage) carrying the call's tokens and cost."""
        details = self.attempt_details
        if not details:
            return None
        last = details[-1]
        if (
            last.error_type is None
            and self.error_type is not None
            and self.error_type.startswith("upstream_")
        ):
            last = msgspec.structs.replace(
                last, error_type=self.error_type
            )  # a stream that failed after its 200
        if tokens is not None:
            last = msgspec.structs.replace(
                last,
                prompt_tokens=tokens.prompt_tokens,
                completion_tokens=tokens.completion_tokens,
                cached_tokens=tokens.cached_tokens,
                cost_micro_usd=cost,
            )
        return [*details[:-1], last]

    async def journaled(self) -> None:
        """Wait until this call's events so far are written to the journal (in the OS's page cache:
        a process kill cannot lose them). One loop pass at most, shared by every call of that pass."""
        if self._journal is not None and self.principal is not None:
            await self._journal.written()

    # -- admission ---------------------------------------------------------------

    async def release(self) -> None:
        """Give back the call's concurrency slot (once; a no-op without one)."""
        if self.ticket is not None and self._admission is not None:
            await self._admission.release(self.ticket)
