"""The journal's partitioner equals Kafka's default one (aiokafka's murmur2), key by key."""

from __future__ import annotations

import random
import uuid

import pytest
from aiokafka.partitioner import DefaultPartitioner
from aiokafka.partitioner import murmur2 as aiokafka_murmur2

from tollway_edge.journal.partition import murmur2, partition_for

pytestmark = pytest.mark.unit


def test_murmur2_matches_aiokafka_for_every_length() -> None:
    rng = random.Random(10)
    for length in range(0, 130):
        for _ in range(10):
            data = rng.randbytes(length)
            assert murmur2(data) == aiokafka_murmur2(data), data


def test_partition_matches_the_default_partitioner() -> None:
    default = DefaultPartitioner()
    for n in (1, 3, 12):
        partitions = list(range(n))
        for _ in range(200):
            key = str(uuid.uuid4()).encode()
            assert partition_for(key, partitions) == default(key, partitions, partitions)
            assert partition_for(key, partitions) == default(key, partitions, partitions)  # from the cache
