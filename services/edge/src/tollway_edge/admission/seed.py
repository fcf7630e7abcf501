"""Cold budget counters (DESIGN.md "Reservations"; issue 10).

:class:`QuotaSeedClient` is the seed provider the edge is meant to use: it
asks quota to seed the counter from the ledger's spend view, once per counter
and period, and never reads the ledger itself.

:func:`unseedable` stands in when no quota URL is configured (a cold budget
counter then takes the local bound or a 503, as when quota is unreachable).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

import aiohttp
import structlog

from tollway_admission import Window
from tollway_admission.singleflight import SingleFlight
from tollway_contracts.limits import Limit

log = structlog.get_logger("tollway_edge.admission")


class SeedError(Exception):
    """A cold budget counter could not be seeded (quota unreachable or not configured)."""


async def unseedable(limit: Limit, window: Window) -> int:
    """The seed provider when no quota URL is configured: always :class:`SeedError`."""
    raise SeedError(f"no quota URL to seed the {limit.scope} budget counter from {window.start.isoformat()}")


class QuotaSeedClient:
    """Asks quota to seed a cold budget counter (issue 10: the edge never reads
    the ledger). ``POST <quota>/internal/v1/budget-seeds`` with
    ``{"tenant_id", "limit" (tollway_contracts.limits.Limit), "at"}``; quota
    reads the ledger's spend view, writes the counter create-if-absent
    (seed.lua) and answers ``{"created", "spent_micro_usd", "period_start",
    "period_end"}`` (services/quota README, "Seeding").

    Cold path only: one HTTP call per (tenant, scope, model, period) at a
    time in this process; concurrent callers share it. The value returned is
    the ledger's spend, which ``tollway_admission`` then writes with the same
    create-if-absent script (a no-op: quota created it already).

    Args:
        base_url: quota's base URL (``http://quota:8082``).
        token: the seed token (``TOLLWAY_QUOTA_SEED_TOKEN``).
        timeout_seconds: per request, s.
    """

    def __init__(self, base_url: str, token: str, *, timeout_seconds: float = 2.0) -> None:
        self._url = base_url.rstrip("/") + "/internal/v1/budget-seeds"
        self._headers = {"Authorization": f"Bearer {token}"}
        self._timeout = aiohttp.ClientTimeout(total=timeout_seconds)
        self._session: aiohttp.ClientSession | None = None
        self._flights: SingleFlight[tuple[str, str, str, str | None, datetime], int] = SingleFlight()
        self.requests = 0

    async def close(self) -> None:
        """Close the HTTP session."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    def provider(self, tenant_id: str) -> Callable[[Limit, Window], Awaitable[int]]:
        """A ``tollway_admission`` seed provider for one tenant's admit
        (``Admission.admit(..., seed_provider=client.provider(tenant_id))``)."""

        async def provide(limit: Limit, window: Window) -> int:
            return await self.seed(tenant_id, limit, window)

        return provide

    async def spend(self, tenant_id: str, limit: Limit, window: Window) -> int:
        """The ledger's spend for ``limit`` in ``window``, micro-USD, through
        quota, writing nothing (``dry_run``; local mode's starting point for a
        counter this process never saw). Not coalesced: off the call path.

        Raises:
            SeedError: quota unreachable, or it answered an error.
        """
        return await self._post(tenant_id, limit, window, dry_run=True)

    async def seed(self, tenant_id: str, limit: Limit, window: Window) -> int:
        """Have quota seed the counter of ``limit`` for ``window``; returns the
        ledger's spend, micro-USD.

        Raises:
            SeedError: quota unreachable, or it answered an error.
        """
        key = (tenant_id, limit.scope, limit.scope_id, limit.model, window.start)
        return await self._flights.run(key, lambda: self._post(tenant_id, limit, window))

    async def _post(self, tenant_id: str, limit: Limit, window: Window, *, dry_run: bool = False) -> int:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        body = {
            "tenant_id": tenant_id,
            "limit": limit.to_json_dict(),
            "at": window.start.isoformat(),
            "dry_run": dry_run,
        }
        self.requests += 1
        try:
            async with self._session.post(self._url, json=body, headers=self._headers) as resp:
                data = await resp.json(content_type=None)
                if resp.status != 200:
                    raise SeedError(f"quota answered {resp.status}: {str(data)[:200]}")
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            raise SeedError(f"quota unreachable: {exc!r}") from exc
        spent = int(data["spent_micro_usd"])
        log.info(
            "budget_seed_requested",
            scope=limit.scope,
            scope_id=limit.scope_id,
            spent_micro_usd=spent,
            created=bool(data.get("created")),
            period_start=window.start.isoformat(),
        )
        return spent
