"""Prometheus metrics of the edge (process-global, as prometheus-client registers them).

With several workers they are collected over every process
(``tollway_runtime.metrics``): counters and histograms are summed; each gauge
says how in its ``multiprocess_mode``.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

REQUESTS = Counter(
    "tollway_requests_total",
    "Calls answered by the edge, by HTTP status and requested model.",
    ["status", "model"],
)
DURATION = Histogram(
    "tollway_request_duration_seconds",
    "Wall time of a call at the edge, seconds (streams: until the last byte).",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300),
)
EVENTS_DROPPED = Counter(
    "tollway_usage_events_dropped_total",
    "Usage events not delivered to Kafka (queue full, producer error, shutdown), by reason.",
    ["reason"],
)
IN_FLIGHT = Gauge(
    "tollway_in_flight_calls",
    "Calls in flight (summed over live worker processes).",
    multiprocess_mode="livesum",
)
SHED = Counter(
    "tollway_requests_shed_total", "Calls refused with 503 because the process was at max_in_flight."
)
ADMISSION_MODE = Gauge(
    "tollway_admission_mode",
    "Admission mode: worker processes in each mode (one process: 1 for its current mode) (exact = Valkey; local = per-process share; refuse = 503).",
    ["mode"],
    multiprocess_mode="livesum",
)
ADMISSION_REFUSED = Counter(
    "tollway_admission_refused_total",
    "Calls refused (429) or streams cut by admission, by the refusing kind (requests, tokens, concurrency, budget, extension).",
    ["kind"],
)
ADMISSION_SHADOW_REFUSALS = Counter(
    "tollway_admission_shadow_refusals_total",
    "Calls a shadow-mode limit would have refused (they were admitted), by the limit's scope kind"
    " (key, user, team, tenant) and limit (requests_per_minute, tokens_per_minute, max_concurrent,"
    " budget); a stream extension counts once more per limit it would have refused.",
    ["scope", "limit"],
)
COUNT_TOKENS = Counter(
    "tollway_count_tokens_total",
    "Anthropic /v1/messages/count_tokens calls (no usage event, no budget charge), by HTTP status and requested model.",
    ["status", "model"],
)
RESPONSE_STATE = Counter(
    "tollway_response_state_total",
    "Stored responses (/v1/responses/{id}, /input_items; no usage event, no budget charge) by operation"
    " (get, delete, input_items: outcome = HTTP status; record: stored/error; lookup: error), and outcome.",
    ["op", "outcome"],
)
OVERHEAD = Histogram(
    "tollway_overhead_seconds",
    "The edge's own time per /v1/ call (wall time minus waiting on the provider; x-tollway-overhead-ms), seconds.",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
TTFT = Histogram(
    "tollway_time_to_first_token_seconds",
    "Streamed calls: time from the call's arrival to the provider's first chunk, seconds.",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
REDACTION_FAILURES = Counter(
    "tollway_redaction_failures_total",
    "Calls failed closed (nothing forwarded) because redaction could not run, by reason: unavailable"
    " (redactor down, past the deadline, 5xx), rejected (the redactor's 4xx), not_configured,"
    " policy_invalid (the key's stored policy is unreadable); answer_unavailable: a provider's answer"
    " that could not be scanned (answers: redact|block) was not delivered.",
    ["reason"],
)
USAGE_ESTIMATED = Counter(
    "tollway_usage_estimated_total",
    "Calls billed from the edge's estimate because the provider's usage never arrived"
    " (usage_estimated), by why the call ended early (the event's error_type: client_disconnected,"
    " upstream_stream_error, stream_limit_reached, server_shutting_down; none = a stream without a usage chunk).",
    ["reason"],
)
BREAKER_STATE = Gauge(
    "tollway_breaker_state",
    "Circuit breaker state per deployment (provider:upstream_model): 0 closed, 1 half-open, 2 open (the highest over worker processes).",
    ["deployment"],
    multiprocess_mode="max",
)
CATALOGUE_RELOADS = Counter(
    "tollway_catalogue_reload_total",
    "Catalogue file changes seen by the edge, by outcome: reloaded, invalid (the previous catalogue kept).",
    ["outcome"],
)
RESPONSE_CACHE = Counter(
    "tollway_response_cache_total",
    "Exact response cache outcomes of opted-in calls: hit, miss, bypass (no-cache), stored, error (Valkey).",
    ["outcome"],
)
PROVIDER_IDLE_CONNECTIONS = Gauge(
    "tollway_provider_idle_connections",
    "Idle keep-alive connections open to a provider, summed over live worker processes"
    " (reported by the pools that keep some warm: the catalogue's min_idle_connections > 0).",
    ["provider"],
    multiprocess_mode="livesum",
)
PROVIDER_CONNECTS = Counter(
    "tollway_provider_connects_total",
    "Connections opened to a provider (TLS included), by purpose (request: a call found no idle"
    " one; warm: kept ahead of demand) and outcome (ok, error: refused, unreachable, TLS, timeout).",
    ["provider", "purpose", "outcome"],
)
