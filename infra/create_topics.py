"""Create the Kafka topics of ``tollway_contracts.topics.ALL_TOPICS``; idempotent.

Existing topics are left as they are (a partition-count mismatch is reported,
never "fixed": changing partitions breaks key ordering). Waits for the broker
to accept admin requests first, since it is usually just starting.

    python infra/create_topics.py [--bootstrap-servers 127.0.0.1:9092] [--timeout 60]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError, TopicAlreadyExistsError

from tollway_contracts.topics import ALL_TOPICS


async def _connect(servers: str, wait_s: float) -> AIOKafkaAdminClient:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while True:
        admin = AIOKafkaAdminClient(bootstrap_servers=servers, request_timeout_ms=10_000)
        try:
            await admin.start()
            await admin.list_topics()
            return admin
        except (KafkaError, OSError) as exc:
            await admin.close()
            if loop.time() > deadline:
                raise SystemExit(f"Kafka at {servers} not answering after {wait_s:.0f}s: {exc!r}") from exc
            await asyncio.sleep(0.5)


async def _wait_described(admin: AIOKafkaAdminClient, names: list[str], wait_s: float) -> dict[str, dict]:
    """Describe the topics until every partition has a leader (new topics take a moment)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while True:
        by_name = {d["topic"]: d for d in await admin.describe_topics(names)}
        ready = all(
            (d := by_name.get(n)) is not None
            and d.get("error_code", 0) == 0
            and d["partitions"]
            and all(p.get("leader", -1) >= 0 for p in d["partitions"])
            for n in names
        )
        if ready or loop.time() > deadline:
            return by_name
        await asyncio.sleep(0.2)


async def create_topics(servers: str, wait_s: float) -> int:
    admin = await _connect(servers, wait_s)
    try:
        existing = set(await admin.list_topics())
        wanted = [t for t in ALL_TOPICS if t.name not in existing]
        for topic in wanted:
            try:
                await admin.create_topics(
                    [
                        NewTopic(
                            name=topic.name,
                            num_partitions=topic.partitions,
                            replication_factor=topic.replication_factor,
                            topic_configs=dict(topic.config),
                        )
                    ]
                )
                print(f"created {topic.name} ({topic.partitions} partitions)")
            except TopicAlreadyExistsError:
                pass
        by_name = await _wait_described(admin, [t.name for t in ALL_TOPICS], wait_s)
        problems = 0
        for topic in ALL_TOPICS:
            d = by_name.get(topic.name)
            if d is None or d.get("error_code", 0) != 0:
                print(f"ERROR: {topic.name}: {d}", file=sys.stderr)
                problems += 1
            elif len(d["partitions"]) != topic.partitions:
                print(
                    f"WARNING: {topic.name} has {len(d['partitions'])} partitions, the manifest says "
                    f"{topic.partitions}; left unchanged",
                    file=sys.stderr,
                )
        if not wanted:
            print(f"all {len(ALL_TOPICS)} topics exist")
        return 1 if problems else 0
    finally:
        await admin.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--bootstrap-servers", default=os.environ.get("TOLLWAY_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092")
    )
    p.add_argument("--timeout", type=float, default=60.0)
    a = p.parse_args()
    sys.exit(asyncio.run(create_topics(a.bootstrap_servers, a.timeout)))


if __name__ == "__main__":
    main()
