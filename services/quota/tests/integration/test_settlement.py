"""Integration: the quota app end to end for settlement — real Postgres, Valkey
(db 11), Kafka and the admission scripts. A reservation made by
``tollway_admission`` is settled from usage events; a redelivered event
changes nothing; budget thresholds alert once, on Kafka and the webhook."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from datetime import timedelta

import httpx
import psycopg
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient
from redis.asyncio import Redis

from tollway_admission import Admission
from tollway_contracts.alerts import Alert, parse_alert
from tollway_contracts.dead_letter import DeadLetter
from tollway_contracts.events import UsageEvent, utcnow
from tollway_contracts.limits import parse_limit
from tollway_quota.alerting import AdmissionBudgetReader

pytestmark = pytest.mark.integration


async def _read_all(topic: str, bootstrap: str, want: int, within: float = 20.0) -> list[bytes]:
    reader = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        group_id=None,
    )
    await reader.start()
    out: list[bytes] = []
    try:
        deadline = asyncio.get_running_loop().time() + within
        while len(out) < want and asyncio.get_running_loop().time() < deadline:
            for records in (await reader.getmany(timeout_ms=300)).values():
                out += [r.value for r in records]
        # anything more than wanted would show up now
        for records in (await reader.getmany(timeout_ms=1000)).values():
            out += [r.value for r in records]
    finally:
        await reader.stop()
    return out


async def _end_offsets_committed(topics) -> bool:  # noqa: ANN001
    admin = AIOKafkaAdminClient(bootstrap_servers=topics.bootstrap)
    probe = AIOKafkaConsumer(bootstrap_servers=topics.bootstrap, group_id=None)
    await admin.start()
    await probe.start()
    try:
        committed = await admin.list_consumer_group_offsets(topics.group)
        parts = [tp for tp in committed if tp.topic == topics.usage]
        ends = await probe.end_offsets(parts) if parts else {}
    finally:
        await probe.stop()
        await admin.close()
    return bool(parts) and all(committed[tp].offset == ends[tp] for tp in parts)


async def test_settle_once_alert_once_and_webhook(quota_fresh_dsn, quota_topics) -> None:  # noqa: ANN001
    from tollway_quota.app import create_app
    from tollway_quota.settings import QuotaSettings

    # the tenant's webhook receiver: fails once, then accepts
    received: list[Alert] = []
    calls = {"n": 0}

    async def hook(request: web.Request) -> web.Response:
        calls["n"] += 1
        if calls["n"] == 1:
            return web.Response(status=503)
        received.append(parse_alert(await request.read()))
        return web.Response(status=204)

    receiver_app = web.Application()
    receiver_app.router.add_post("/hook", hook)
    receiver = TestServer(receiver_app, host="127.0.0.1", port=0)
    await receiver.start_server()

    token = secrets.token_urlsafe(16)
    valkey_url = "redis://127.0.0.1:6379/11"
    settings = QuotaSettings(
        postgres_dsn=quota_fresh_dsn,
        valkey_url=valkey_url,
        admin_token=token,
        key_pepper="pepper-x",
        invalidation_channel=f"test:quota:inv:{secrets.token_hex(4)}",
        kafka_bootstrap_servers=quota_topics.bootstrap,
        usage_topic=quota_topics.usage,
        dlq_topic=quota_topics.dlq,
        alerts_topic=quota_topics.alerts,
        consumer_group=quota_topics.group,
        webhook_backoff_seconds=0.05,
        log_format="json",
        reconcile_expired=False,
        # Each message sent below is its own fetch, hence its own batch: an alert's
        # `used` is the budget read after its batch (alerting.after_batch), so the
        # values checked below need one event per batch, not the default 250 ms wait.
        fetch_min_bytes=1,
    )
    server = TestServer(create_app(settings), host="127.0.0.1", port=0)
    await server.start_server()
    valkey = Redis.from_url(valkey_url)
    producer = AIOKafkaProducer(bootstrap_servers=quota_topics.bootstrap, acks="all")
    await producer.start()
    tenant_id = None
    try:
        async with httpx.AsyncClient(
            base_url=str(server.make_url("")).rstrip("/"), headers={"Authorization": f"Bearer {token}"}
        ) as c:
            tenant = (
                await c.post("/admin/v1/tenants", json={"name": "settle-co", "time_zone": "Europe/Paris"})
            ).json()
            tenant_id = tenant["id"]
            key = (await c.post("/admin/v1/keys", json={"tenant_id": tenant_id, "name": "k"})).json()
            r = await c.put(
                "/admin/v1/limits",
                json={
                    "scope": "key",
                    "scope_id": key["key_id"],
                    "budget_micro_usd": 1000,
                    "budget_period": "day",
                    "tokens_per_minute": 100_000,
                    "thresholds_percent": [50, 80],
                },
            )
            assert r.status_code == 201, r.text
            r = await c.patch(
                f"/admin/v1/tenants/{tenant_id}", json={"alert_webhook_url": str(receiver.make_url("/hook"))}
            )
            assert r.status_code == 200, r.text

        # The edge's side: limits from the view, two reservations through the admission library.
        async with await psycopg.AsyncConnection.connect(quota_fresh_dsn) as conn:
            row = await (
                await conn.execute(
                    "SELECT limits FROM catalog.edge_principals WHERE key_id = %s", (key["key_id"],)
                )
            ).fetchone()
        limits = [parse_limit(x) for x in row[0]]
        adm = Admission(valkey)

        async def zero(_limit, _window) -> int:  # noqa: ANN001
            return 0

        r1, r2 = uuid.uuid4(), uuid.uuid4()
        a1 = await adm.admit(
            tenant_id=tenant_id,
            request_id=str(r1),
            limits=limits,
            model="gpt-4o-mini",
            tokens=500,
            cost_micro_usd=600,
            seed_provider=zero,
        )
        a2 = await adm.admit(
            tenant_id=tenant_id,
            request_id=str(r2),
            limits=limits,
            model="gpt-4o-mini",
            tokens=500,
            cost_micro_usd=300,
            seed_provider=zero,
        )
        assert a1.admitted and a2.admitted

        def event(rid: uuid.UUID, kind: str, reservation, cost: int | None, tokens: int | None) -> UsageEvent:  # noqa: ANN001
            now = utcnow()
            return UsageEvent(
                type=kind,
                request_id=rid,
                tenant_id=tenant_id,
                key_id=key["key_id"],
                ts_start=now - timedelta(seconds=1),
                ts_end=None if kind == "started" else now,
                model="gpt-4o-mini",
                prompt_tokens=tokens and 40,
                completion_tokens=tokens and tokens - 40,
                total_tokens=tokens,
                cost_micro_usd=cost,
                reservation=reservation,
            )

        res1 = a1.reservation_by_scope()
        res2 = a2.reservation_by_scope()
        messages = [
            event(r1, "started", None, None, None).to_json(),
            b"{broken",
            event(r1, "completed", res1, 550, 90).to_json(),
            event(r1, "completed", res1, 550, 90).to_json(),  # redelivered (new event id): changes nothing
            event(r2, "completed", res2, 300, 60).to_json(),
        ]
        keys = [r1, None, r1, r1, r2]
        for value, rid in zip(messages, keys, strict=True):
            # one partition, so the order (and each alert's `used`) is deterministic
            await producer.send_and_wait(
                quota_topics.usage, value, partition=0, key=None if rid is None else str(rid).encode()
            )

        deadline = asyncio.get_running_loop().time() + 30
        while not await _end_offsets_committed(quota_topics):
            assert asyncio.get_running_loop().time() < deadline, "the consumer did not commit everything"
            await asyncio.sleep(0.3)

        # counters: settled once each; nothing left reserved
        usage = await AdmissionBudgetReader(Admission(valkey)).read(tenant_id, limits[0], utcnow())
        assert usage is not None and usage.spent_micro_usd == 850
        budget_key = next(k for k in await valkey.keys(f"tw:{{{tenant_id}}}:budget:*"))
        assert int(await valkey.hget(budget_key, "reserved")) == 0
        again = await adm.settle(tenant_id=tenant_id, request_id=str(r1), tokens=90, cost_micro_usd=550)
        assert again.status == "already_settled"

        letters = [
            DeadLetter.model_validate_json(v)
            for v in await _read_all(quota_topics.dlq, quota_topics.bootstrap, 1)
        ]
        assert len(letters) == 1 and letters[0].value == "{broken"

        alerts = [parse_alert(v) for v in await _read_all(quota_topics.alerts, quota_topics.bootstrap, 2)]
        assert sorted((a.threshold_percent, a.kind, a.used) for a in alerts) == [
            (50, "threshold", 550),
            (80, "threshold", 850),
        ]
        assert {a.tenant_id for a in alerts} == {tenant_id}
        assert {a.time_zone for a in alerts} == {"Europe/Paris"} and {a.period for a in alerts} == {"day"}

        for _ in range(100):  # up to 10 s
            if len(received) >= 2:
                break
            await asyncio.sleep(0.1)
        assert sorted(a.alert_id for a in received) == sorted(a.alert_id for a in alerts)
        assert calls["n"] == 3  # one 503 retried

        # Every event delivered again (a second group re-reads the whole topic):
        # no counter moves, no alert repeats.
        await server.close()
        replay = settings.model_copy(update={"consumer_group": quota_topics.group + "-replay"})
        server = TestServer(create_app(replay), host="127.0.0.1", port=0)
        await server.start_server()
        replay_topics = type(quota_topics)(
            quota_topics.usage,
            quota_topics.dlq,
            quota_topics.alerts,
            replay.consumer_group,
            quota_topics.bootstrap,
        )
        deadline = asyncio.get_running_loop().time() + 30
        while not await _end_offsets_committed(replay_topics):
            assert asyncio.get_running_loop().time() < deadline, "the replay did not commit everything"
            await asyncio.sleep(0.3)
        usage = await AdmissionBudgetReader(Admission(valkey)).read(tenant_id, limits[0], utcnow())
        assert usage is not None and usage.spent_micro_usd == 850
        assert int(await valkey.hget(budget_key, "reserved")) == 0
        assert len(await _read_all(quota_topics.alerts, quota_topics.bootstrap, 3, within=3)) == 2
        assert len(received) == 2
    finally:
        await producer.stop()
        await server.close()
        await receiver.close()
        if tenant_id:
            keys = [k async for k in valkey.scan_iter(match=f"tw:*{{{tenant_id}}}*")]
            if keys:
                await valkey.delete(*keys)
        await valkey.aclose()
