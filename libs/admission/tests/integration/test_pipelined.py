"""The admission scripts through :class:`PipelinedClient` (one pipelined connection).

Every test of ``test_admission.py`` runs again here with each ``Admission``
given a pipelined client on the same Valkey db (same semantics required:
all-or-nothing, exact counts under 300 concurrent admits, settle-once), plus
the client's own behaviour: error replies, db selection, a lost connection.
"""

from __future__ import annotations

import asyncio
import importlib.util
import uuid
from pathlib import Path

import pytest
import pytest_asyncio

from tollway_admission import (
    Admission,
    NoScriptError,
    PipelinedClient,
    ValkeyConnectionError,
    ValkeyResponseError,
    ValkeyTimeoutError,
)
from tollway_admission import admission as admission_module
from tollway_admission.pipelined import pack
from tollway_contracts.limits import Limit

pytestmark = pytest.mark.integration

_spec = importlib.util.spec_from_file_location(
    "tollway_admission_tests_base", Path(__file__).with_name("test_admission.py")
)
assert _spec is not None and _spec.loader is not None
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)
for _name in dir(_base):
    if _name.startswith("test_") and _name != "test_one_admit_is_one_round_trip":  # counts redis-py sends
        globals()[_name] = getattr(_base, _name)


def _url() -> str:
    conftest = importlib.util.spec_from_file_location(
        "tollway_admission_conftest", Path(__file__).parents[1] / "conftest.py"
    )
    assert conftest is not None and conftest.loader is not None
    mod = importlib.util.module_from_spec(conftest)
    conftest.loader.exec_module(mod)
    return mod._admission_url()


@pytest_asyncio.fixture(autouse=True)
async def _every_admission_pipelined(monkeypatch):
    """Give every Admission built in this module a pipelined client of its own."""
    clients: list[PipelinedClient] = []
    original = admission_module.Admission.__init__

    def init(self, client, *args, **kw):  # type: ignore[no-untyped-def]
        if kw.get("pipelined") is None:
            fast = PipelinedClient(_url(), timeout=5)
            clients.append(fast)
            kw["pipelined"] = fast
        original(self, client, *args, **kw)

    monkeypatch.setattr(admission_module.Admission, "__init__", init)
    yield
    for c in clients:
        await c.aclose()


async def test_pipelined_client_replies_and_errors():
    c = PipelinedClient(_url(), timeout=5)
    key = f"tw:{{pipelined-{uuid.uuid4().hex[:8]}}}:probe"
    try:
        assert await c.execute("PING") == b"PONG"
        assert await c.execute("SET", key, "é") == b"OK"
        assert (await c.execute("GET", key)).decode() == "é"
        # the key is in the configured db, not db 0
        db = int(_url().rsplit("/", 1)[1])
        assert await c.execute("EXISTS", key) == 1
        if db != 0:
            await c.execute("SELECT", 0)  # on this connection only
            assert await c.execute("EXISTS", key) == 0
            await c.execute("SELECT", db)
        with pytest.raises(NoScriptError):
            await c.evalsha("0" * 40, [key], [])
        with pytest.raises(ValkeyResponseError):
            await c.execute("INCR", key)  # not an integer
        # many commands in flight at once come back to their callers in order
        got = await asyncio.gather(*(c.execute("ECHO", str(i)) for i in range(500)))
        assert got == [str(i).encode() for i in range(500)]
        await c.execute("DEL", key)
    finally:
        await c.aclose()


async def test_pipelined_client_fails_pending_on_loss_and_reconnects(adm_tenant, adm_clock, adm_redis):
    c = PipelinedClient(_url(), timeout=5)
    try:
        blocked = asyncio.ensure_future(c.execute("BLPOP", f"tw:{{{adm_tenant}}}:nothing", 5))
        await asyncio.sleep(0.05)
        c.disconnect()
        with pytest.raises(ValkeyConnectionError):
            await blocked
        adm = Admission(adm_redis, clock=adm_clock, pipelined=c)
        res = await adm.admit(
            tenant_id=adm_tenant,
            request_id=str(uuid.uuid4()),
            limits=[Limit(scope="key", scope_id="k1", requests_per_minute=1)],
        )
        assert res.admitted
        res = await adm.admit(
            tenant_id=adm_tenant,
            request_id=str(uuid.uuid4()),
            limits=[Limit(scope="key", scope_id="k1", requests_per_minute=1)],
        )
        assert res.status == "refused"
    finally:
        await c.aclose()


async def test_a_reply_later_than_the_timeout_is_a_timeout_and_the_connection_stays_in_order(adm_tenant):
    c = PipelinedClient(_url(), timeout=0.3)
    try:
        empty = f"tw:{{{adm_tenant}}}:nothing"
        t0 = asyncio.get_running_loop().time()
        with pytest.raises(ValkeyTimeoutError):
            await c.execute("BLPOP", empty, 1)  # Valkey answers nil after 1 s
        assert 0.25 < asyncio.get_running_loop().time() - t0 < 0.9
        with pytest.raises(ValkeyTimeoutError):  # every command of a batch past its deadline
            await c.execute_many([pack(["BLPOP", empty, 1]), pack(["PING"])])
        await asyncio.sleep(1.9)  # both late nils (and the batch's PONG) arrive and are dropped in order
        assert await c.execute("PING") == b"PONG"
        assert await c.execute_many([pack(["ECHO", "a"]), pack(["ECHO", "b"])]) == [b"a", b"b"]
    finally:
        await c.aclose()


async def test_a_redis_server_down_is_a_connection_error():
    c = PipelinedClient("redis://127.0.0.1:1/13", timeout=2)
    with pytest.raises(ValkeyConnectionError):
        await c.execute("PING")


async def test_one_admit_is_one_write_on_the_pipelined_connection(
    adm_redis, adm_tenant, adm_clock, monkeypatch
):
    c = PipelinedClient(_url(), timeout=5)
    writes: list[bytes] = []
    original = PipelinedClient.execute_packed

    async def counting(self, packed):  # type: ignore[no-untyped-def]
        writes.append(packed)
        return await original(self, packed)

    monkeypatch.setattr(PipelinedClient, "execute_packed", counting)
    try:
        adm = Admission(adm_redis, clock=adm_clock, seed_provider=_base.zero_seed, pipelined=c)
        limits = [
            Limit(
                scope="key",
                scope_id="k1",
                requests_per_minute=100,
                tokens_per_minute=10**6,
                max_concurrent=10,
            ),
            Limit(scope="tenant", scope_id=adm_tenant, budget_micro_usd=10**9, budget_period="month"),
        ]
        await adm.admit(
            tenant_id=adm_tenant, request_id=str(uuid.uuid4()), limits=limits, tokens=5, cost_micro_usd=5
        )  # warms the budget counter (seed round)
        writes.clear()
        res = await adm.admit(
            tenant_id=adm_tenant, request_id=str(uuid.uuid4()), limits=limits, tokens=5, cost_micro_usd=5
        )
        assert res.admitted and len(writes) == 1 and writes[0].startswith(b"*")
        await adm.release(tenant_id=adm_tenant, request_id=res.request_id, reservation=res.reservation)
        assert len(writes) == 2
    finally:
        await c.aclose()
