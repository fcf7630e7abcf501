"""Records on their way to Kafka: the in-memory record, batch packing, and the errors that never retry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiokafka import AIOKafkaProducer
from aiokafka.errors import (
    CorruptRecordException,
    InvalidProducerEpoch,
    MessageSizeTooLargeError,
    OutOfOrderSequenceNumber,
    ProducerFenced,
    RecordListTooLargeError,
    RecordTooLargeError,
    UnknownProducerId,
)

from tollway_edge.journal import format as fmt
from tollway_edge.journal.segments import Segment

# Broker errors about the records themselves: retrying the same batch can never succeed.
RECORD_ERRORS = (
    MessageSizeTooLargeError,
    RecordListTooLargeError,
    RecordTooLargeError,
    CorruptRecordException,
)

# Errors after which the idempotent producer's sequence state is unusable (aiokafka's sender
# even stops on OutOfOrderSequenceNumber): the shipper replaces the producer.
RESET_ERRORS = (
    OutOfOrderSequenceNumber,
    UnknownProducerId,
    InvalidProducerEpoch,
    ProducerFenced,
    *RECORD_ERRORS,
)


@dataclass(slots=True)
class Shipment:
    """A record read from a segment and not yet acknowledged."""

    seg: Segment
    ts_us: int
    key: bytes
    value: bytes
    solo: bool = False  # send in a batch of its own (its batch was rejected as a whole)
    trace: bytes = b""  # W3C trace context: sent as the record's traceparent/tracestate headers

    @property
    def size(self) -> int:
        """Bytes of the record's frame in the journal."""
        return fmt.record_bytes(self.key, self.value, self.trace)


def pack_batches(producer: AIOKafkaProducer, records: list[Shipment]) -> list[tuple[Any, list[Shipment]]]:
    """Pack one partition's records into aiokafka batches (a ``solo`` record gets a batch of its own)."""
    out: list[tuple[Any, list[Shipment]]] = []
    batch: Any = None
    members: list[Shipment] = []
    for r in records:
        if r.solo:
            single = producer.create_batch()
            single.append(
                key=r.key, value=r.value, timestamp=r.ts_us // 1000, headers=fmt.kafka_headers(r.trace)
            )
            out.append((single, [r]))
            continue
        headers = fmt.kafka_headers(r.trace)
        ts_ms = r.ts_us // 1000
        if batch is None or batch.append(key=r.key, value=r.value, timestamp=ts_ms, headers=headers) is None:
            if members:
                out.append((batch, members))
            batch = producer.create_batch()
            members = []
            batch.append(key=r.key, value=r.value, timestamp=ts_ms, headers=headers)
        members.append(r)
    if members:
        out.append((batch, members))
    return out
