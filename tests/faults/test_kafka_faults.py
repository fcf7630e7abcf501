"""The Kafka broker stopped (SIGSTOP) and killed under load: calls go on (the
edge's journal holds their events) and, once the broker is back, every call is
billed exactly once. A PRIVATE broker: the shared stack's is never touched."""

from __future__ import annotations

import asyncio
import signal
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from .conftest import FAULT_SECONDS
from .rig import PrivateKafka, load, rig, row_for_docs, write_result

pytestmark = pytest.mark.integration

CMD = "TOLLWAY_FAULT_SECONDS={s:g} bash infra/test.sh tests/faults/test_kafka_faults.py -k {k}"


@pytest_asyncio.fixture(scope="module")
async def private_kafka(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[PrivateKafka]:
    kafka = PrivateKafka(tmp_path_factory.mktemp("private-kafka"))
    await asyncio.to_thread(kafka.format)
    await kafka.start()
    try:
        yield kafka
    finally:
        kafka.kill()


@pytest_asyncio.fixture
async def kafka_rig_args(rig_args: dict[str, Any], private_kafka: PrivateKafka) -> dict[str, Any]:
    topic, dlq = f"faults.usage.{uuid.uuid4().hex[:8]}", f"faults.dlq.{uuid.uuid4().hex[:8]}"
    await private_kafka.create_topic(topic, 3)
    await private_kafka.create_topic(dlq, 1)
    return {**rig_args, "kafka": private_kafka.bootstrap, "topic": topic, "dlq": dlq}


async def test_kafka_sigstopped(kafka_rig_args: dict[str, Any], private_kafka: PrivateKafka) -> None:
    seconds = FAULT_SECONDS + 10
    async with rig(**kafka_rig_args) as r:
        task = asyncio.create_task(load(r, seconds))
        await asyncio.sleep(4)
        private_kafka.signal(signal.SIGSTOP)
        try:
            await asyncio.sleep(FAULT_SECONDS)
        finally:
            private_kafka.signal(signal.SIGCONT)
        out = await task
        report, waited = await r.settle_and_check(within_s=120)
    write_result(
        kafka_rig_args["basetemp"],
        row_for_docs(
            f"Kafka broker SIGSTOPped {FAULT_SECONDS:g} s (settled {waited:.0f} s after)",
            f"8 clients, {seconds:g} s",
            out,
            report,
            CMD.format(s=FAULT_SECONDS, k="sigstopped"),
        ),
    )
    assert out.failed == 0, out.errors  # nothing on the call's path waits for Kafka
    assert report.clean, (report.summary(), report.problems()[:5])


async def test_kafka_killed_and_restarted(
    kafka_rig_args: dict[str, Any], private_kafka: PrivateKafka
) -> None:
    seconds = FAULT_SECONDS + 10
    async with rig(**kafka_rig_args) as r:
        task = asyncio.create_task(load(r, seconds))
        await asyncio.sleep(4)
        private_kafka.kill()
        await asyncio.sleep(FAULT_SECONDS)
        await private_kafka.start()
        out = await task
        report, waited = await r.settle_and_check(within_s=120)
    write_result(
        kafka_rig_args["basetemp"],
        row_for_docs(
            f"Kafka broker SIGKILLed, restarted after {FAULT_SECONDS:g} s (settled {waited:.0f} s after)",
            f"8 clients, {seconds:g} s",
            out,
            report,
            CMD.format(s=FAULT_SECONDS, k="killed"),
        ),
    )
    assert out.failed == 0, out.errors
    assert report.clean, (report.summary(), report.problems()[:5])
