"""Valkey adapter: publish principals invalidations after commit.

Contract: :class:`tollway_contracts.principals.Invalidation` JSON on
:data:`tollway_contracts.principals.INVALIDATION_CHANNEL`. Publishing is
best effort: a lost message only delays a change until each edge's periodic
version check (DESIGN.md "Two kinds of configuration"), so a failure is
logged and the admin call still succeeds (its change is committed).
"""

from __future__ import annotations

import structlog
from redis.asyncio import Redis

from tollway_contracts.principals import INVALIDATION_CHANNEL, Invalidation

log = structlog.get_logger("tollway_quota.invalidations")


class InvalidationPublisher:
    """Publishes on one Valkey client; ``channel`` is overridable for tests."""

    def __init__(self, valkey: Redis, channel: str = INVALIDATION_CHANNEL) -> None:
        self._valkey = valkey
        self.channel = channel

    async def publish(self, version: int, key_ids: list[str]) -> bool:
        """Publish ``Invalidation(version, key_ids)``; True if Valkey took it."""
        payload = Invalidation(version=version, key_ids=key_ids).encode()
        try:
            await self._valkey.publish(self.channel, payload)
        except Exception as exc:  # noqa: BLE001 - best effort, see module doc
            log.warning("invalidation_publish_failed", version=version, error=type(exc).__name__)
            return False
        return True
