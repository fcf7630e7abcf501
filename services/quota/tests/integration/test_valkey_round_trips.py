"""Quota's Valkey client counts its round trips as ``service="quota"`` and ``/metrics`` exports
them (``tollway_valkey_round_trips_total``, tollway_admission.roundtrips): the bench adds them
to the edge's for issue 9's "Valkey round trips per call" (admit, release, settle)."""

from __future__ import annotations

import secrets

import httpx
import pytest
from aiohttp.test_utils import TestServer
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.integration


def _quota_round_trips(text: str) -> float:
    return sum(
        s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == "tollway_valkey_round_trips_total" and s.labels.get("service") == "quota"
    )


async def test_readiness_pings_count_as_quota_round_trips_on_metrics(
    quota_fresh_dsn, quota_topics, valkey_test_url: str
) -> None:  # noqa: ANN001
    from tollway_quota.app import create_app
    from tollway_quota.settings import QuotaSettings

    settings = QuotaSettings(
        postgres_dsn=quota_fresh_dsn,
        valkey_url=valkey_test_url,
        admin_token=secrets.token_urlsafe(16),
        key_pepper="pepper-x",
        invalidation_channel=f"test:quota:inv:{secrets.token_hex(4)}",
        kafka_bootstrap_servers=quota_topics.bootstrap,
        usage_topic=quota_topics.usage,
        dlq_topic=quota_topics.dlq,
        alerts_topic=quota_topics.alerts,
        consumer_group=quota_topics.group,
        log_format="json",
        reconcile_expired=False,
    )
    server = TestServer(create_app(settings), host="127.0.0.1", port=0)
    await server.start_server()
    try:
        async with httpx.AsyncClient(base_url=str(server.make_url("")).rstrip("/")) as c:
            assert (await c.get("/readyz")).status_code == 200  # connects: the handshake counts too
            before = _quota_round_trips((await c.get("/metrics")).text)
            assert before >= 2  # handshake (SELECT, CLIENT SETINFO, ...) and one PING
            for _ in range(3):
                assert (await c.get("/readyz")).status_code == 200
            after = _quota_round_trips((await c.get("/metrics")).text)
        assert after - before == 3  # one PING per readiness check on the open connection
    finally:
        await server.close()
