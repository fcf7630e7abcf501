"""Prometheus metrics of the redactor (served on ``/metrics`` by
``tollway_runtime.metrics``; the HTTP server is one process, its analysis
workers report through it, so the counts are the service's).

Besides ``tollway_http_requests_total`` / ``tollway_http_request_duration_seconds``
(``service="redactor"``, ``http_metrics_middleware``):

- ``tollway_redaction_duration_seconds``: time to answer one ``/v1/redact``
  request that was answered 200 (cache lookups + analysis + anonymisation), s;
- ``tollway_redaction_texts_total{cache}``: texts of 200 answers, ``hit`` (detections from
  the cache) or ``miss`` (analysed now); the cache hit ratio is
  ``hit / (hit + miss)``;
- ``tollway_redaction_entities_total{entity_type}``: detections by Presidio entity type
  (values never leave the process; only the type is a label).
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

REDACTION_DURATION = Histogram(
    "tollway_redaction_duration_seconds",
    "Time to answer a /v1/redact request answered 200 (cache + analysis + anonymisation), seconds.",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
REDACTION_TEXTS = Counter(
    "tollway_redaction_texts_total",
    "Texts redacted, by detection cache outcome (hit: detections from the cache; miss: analysed now).",
    ["cache"],
)
REDACTION_ENTITIES = Counter(
    "tollway_redaction_entities_total",
    "Detections, by Presidio entity type.",
    ["entity_type"],
)
