"""The quota service's settlement consumer as a PRIVATE process for the fault suite
(``python -m tollway_quota``, free port, its own database, the rig's Valkey and topic),
and the check that its counters equal the ledger's sums."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from tollway_admission import Admission, BudgetUsage, valkey_client
from tollway_contracts.limits import Limit

from .rig import free_port, processes, remember_secret, wait_http

BUDGET_MICRO_USD = 10**12
"""The rig key's monthly budget (micro-USD): never reached, so every call is admitted and
reserved against it, and settled by quota."""


def budget_limit(key_id: str = "$key") -> Limit:
    """The key-scope monthly budget the quota fault's key carries."""
    return Limit(scope="key", scope_id=key_id, budget_micro_usd=BUDGET_MICRO_USD, budget_period="month")


@dataclass
class PrivateQuota:
    """``python -m tollway_quota`` (settlement consumer on; reconciliation off, so only
    settlement moves the counters) that a test may SIGKILL and restart; it resumes from
    its group's committed offsets. Its database holds only its own catalog (migrated at
    start): the rig's key lives in the edge's stand-in principals tables."""

    tmp: Path
    basetemp: Path
    db: str
    valkey_url: str
    kafka: str
    topic: str
    dlq_topic: str
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    token: str = field(default_factory=lambda: "faults-admin-" + secrets.token_hex(12))

    async def start(self) -> None:
        """Start (or restart) it and wait until it serves ``/healthz``."""
        remember_secret(self.basetemp, self.token)
        env = {
            **os.environ,
            "TOLLWAY_POSTGRES_DSN": self.db,
            "TOLLWAY_VALKEY_URL": self.valkey_url,
            "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": self.kafka,
            "TOLLWAY_ADMIN_TOKEN": self.token,
            "TOLLWAY_KEY_PEPPER": "faults-quota-pepper",
            "TOLLWAY_QUOTA_PORT": str(self.port),
            "TOLLWAY_QUOTA_USAGE_TOPIC": self.topic,
            "TOLLWAY_QUOTA_DLQ_TOPIC": self.dlq_topic,
            "TOLLWAY_QUOTA_ALERTS_TOPIC": f"{self.topic}-alerts",
            "TOLLWAY_QUOTA_CONSUMER_GROUP": f"faults-quota-{self.topic}",
            "TOLLWAY_QUOTA_INVALIDATION_CHANNEL": f"faults:quota:inv:{self.topic}",
            "TOLLWAY_QUOTA_RECONCILE_EXPIRED": "false",
            "TOLLWAY_QUOTA_SHUTDOWN_TIMEOUT_SECONDS": "5",
            "TOLLWAY_LOG_LEVEL": "INFO",
            "TOLLWAY_LOG_FORMAT": "json",
        }
        self.proc = self._spawn(env)
        await wait_http(f"http://127.0.0.1:{self.port}/healthz", within_s=60, proc=self.proc)

    def _spawn(self, env: dict[str, str]) -> subprocess.Popen[bytes]:
        log = (self.tmp / "quota.log").open("ab")
        try:
            return subprocess.Popen([sys.executable, "-m", "tollway_quota"], env=env, stdout=log, stderr=log)
        finally:
            log.close()

    def kill(self) -> None:
        """SIGKILL it and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None:
            processes.stop(self.proc, timeout=20)


async def seed_zero(valkey_url: str, tenant_id: str, limit: Limit) -> None:
    """Create the key's budget counter at 0 (as quota's seeding would from an empty ledger),
    so the edge never needs quota's seeding endpoint (not part of this rig)."""
    valkey = valkey_client(valkey_url)
    try:
        await Admission(valkey).seed_budget(tenant_id, limit, 0)
    finally:
        await valkey.aclose()


async def budget_usage(valkey_url: str, tenant_id: str, limit: Limit) -> BudgetUsage | None:
    """The key's budget counter now (one read)."""
    valkey = valkey_client(valkey_url)
    try:
        return await Admission(valkey).budget_usage(tenant_id, limit)
    finally:
        await valkey.aclose()


async def ledger_spend(dsn: str, key_id: str) -> int:
    """The ledger's spend of ``key_id`` this month, micro-USD (``ledger.usage_records``)."""
    conn = await asyncpg.connect(dsn)
    try:
        value = await conn.fetchval(
            "SELECT coalesce(sum(cost_micro_usd), 0) FROM ledger.usage_records"
            " WHERE key_id = $1 AND ts_start >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'",
            key_id,
        )
    finally:
        await conn.close()
    return int(value)
