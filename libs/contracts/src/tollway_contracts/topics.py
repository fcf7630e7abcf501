"""Kafka topic manifests: one entry per topic, the single source of topic names.

DESIGN.md "Kafka topics": every topic is keyed as listed here; locally 12
partitions and replication factor 1. ``infra/`` creates exactly these topics.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class TopicManifest:
    """One Kafka topic and who may write and read it.

    Attributes:
        name: topic name, versioned in the name (``tollway.<subject>.v<N>``).
        key: what the record key holds (e.g. ``request id``).
        value: what the record value holds.
        producers: services that produce to the topic.
        consumers: services (consumer groups) that read it.
        version: schema version of the value.
        compatibility: rule for changing the value schema.
        partitions: partition count for the local stack.
        replication_factor: replication factor for the local stack.
        config: topic-level configs passed at creation.
    """

    name: str
    key: str
    value: str
    producers: tuple[str, ...]
    consumers: tuple[str, ...]
    version: int = 1
    compatibility: str = "additive changes only; anything else is a new topic"
    partitions: int = 12
    replication_factor: int = 1
    config: dict[str, str] = field(default_factory=dict)


USAGE = TopicManifest(
    name="tollway.usage.v1",
    key="request id (UUID text)",
    value="usage event v1 (tollway_contracts.events.UsageEvent), JSON",
    producers=("edge",),
    consumers=("ledger", "quota"),
    config={"retention.ms": str(7 * 24 * 3600 * 1000)},
)

ALERTS = TopicManifest(
    name="tollway.alerts.v1",
    key="tenant id",
    value="a scope crossed a threshold or limit (tollway_contracts.alerts.Alert), JSON",
    producers=("quota",),
    consumers=("webhooks", "anyone"),
)

USAGE_DLQ = TopicManifest(
    name="tollway.usage.dlq.v1",
    key="request id, or null when the message could not be parsed",
    value="tollway_contracts.events.DeadLetter, JSON",
    producers=("ledger", "quota"),
    consumers=("operators",),
    config={"retention.ms": str(30 * 24 * 3600 * 1000)},
)

ALL_TOPICS: tuple[TopicManifest, ...] = (USAGE, ALERTS, USAGE_DLQ)

# Consumer group ids, one per consuming service.
LEDGER_CONSUMER_GROUP = "tollway-ledger"
QUOTA_CONSUMER_GROUP = "tollway-quota"
