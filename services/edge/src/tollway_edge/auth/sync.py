"""Keeps the principals :class:`Snapshot` current (adapter: Postgres + Valkey).

Two paths converge (tollway_contracts.principals): the Valkey invalidation
channel (immediate) and a version poll every ``poll_interval`` seconds (heals
a lost message). Both call :meth:`PrincipalsSync.refresh`, which reads the
version first and then the rows above the snapshot's version: quota bumps the
version row in the change's own transaction, so every change at or below the
version read is visible to the row query that follows.

Postgres is never queried for a known key; an unknown key id costs one
``KEY_QUERY`` and then sits in the bounded negative cache until the next
invalidation.
"""

from __future__ import annotations

import asyncio
import contextlib

import asyncpg
import orjson
import structlog

from tollway_admission import NodeClient, node_url
from tollway_contracts.principals import (
    INVALIDATION_CHANNEL,
    KEY_QUERY,
    SNAPSHOT_QUERY,
    VERSION_QUERY,
)
from tollway_edge.auth.principals import Principal, Snapshot

log = structlog.get_logger("tollway_edge.principals")


async def _init_connection(conn: asyncpg.Connection) -> None:
    for name in ("json", "jsonb"):
        await conn.set_type_codec(
            name, encoder=lambda v: orjson.dumps(v).decode(), decoder=orjson.loads, schema="pg_catalog"
        )


class PrincipalsSync:
    """Loads the snapshot at start and keeps it current.

    Args:
        snapshot: the snapshot to fill.
        dsn: Postgres DSN (read-only access to the ``catalog`` views is enough).
        valkey_url: Valkey URL for the invalidation channel.
        poll_interval: seconds between version checks.
    """

    def __init__(self, snapshot: Snapshot, dsn: str, valkey_url: str, poll_interval: float = 1.0) -> None:
        self.snapshot = snapshot
        self._dsn = dsn
        self._valkey_url = valkey_url
        self._poll_interval = poll_interval
        self._pool: asyncpg.Pool | None = None
        self._redis: NodeClient | None = None
        self._lock = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []
        self._lookups: dict[str, asyncio.Future[Principal | None]] = {}

    @property
    def pool(self) -> asyncpg.Pool | None:
        """The read-only Postgres pool (None until connected); admission seeds cold counters with it."""
        return self._pool

    async def start(self) -> None:
        """Load the snapshot and start the loops; when Postgres or Valkey is not
        reachable yet, keep retrying in the background (``/readyz`` stays 503
        and calls get 503 until the snapshot is loaded)."""
        try:
            await self._start_once()
        except Exception:  # noqa: BLE001 - retried below
            log.warning("principals_start_failed", exc_info=True)
            await self._close_connections()
            self._tasks = [asyncio.create_task(self._start_retry(), name="principals-start")]

    async def _start_retry(self) -> None:
        delay = 0.5
        while True:
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)
            try:
                await self._start_once()
                return
            except Exception:  # noqa: BLE001
                log.warning("principals_start_failed", exc_info=True)
                await self._close_connections()

    async def _close_connections(self) -> None:
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.aclose()
            self._redis = None
        if self._pool is not None:
            with contextlib.suppress(Exception):
                await self._pool.close()
            self._pool = None

    async def _start_once(self) -> None:
        """Connect, load the whole snapshot, and start the listener and poller.

        Raises:
            asyncpg.PostgresError, OSError: Postgres unreachable or views missing.
        """
        self._pool = await asyncpg.create_pool(
            self._dsn, min_size=1, max_size=4, init=_init_connection, command_timeout=10
        )
        # a cluster relays PUBLISH to every node: its seed node will do (our client, no redis-py)
        self._redis = NodeClient(node_url(self._valkey_url), service="edge")
        await self.refresh()
        self.snapshot.loaded = True
        self._tasks += [
            asyncio.create_task(self._listen(), name="principals-listen"),
            asyncio.create_task(self._poll(), name="principals-poll"),
        ]
        log.info("principals_loaded", keys=len(self.snapshot.by_key_id), version=self.snapshot.version)

    async def stop(self) -> None:
        """Stop the loops and close the connections."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._close_connections()

    async def refresh(self) -> int:
        """Apply every row changed since the snapshot's version.

        Returns:
            The number of rows applied.
        """
        assert self._pool is not None
        async with self._lock:
            async with self._pool.acquire() as conn:
                current = await conn.fetchval(VERSION_QUERY)
                if current is not None and current <= self.snapshot.version:
                    return 0
                rows = await conn.fetch(SNAPSHOT_QUERY, self.snapshot.version)
            top = self.snapshot.apply([Principal.from_row(r) for r in rows])
            self.snapshot.clear_negative()
            self.snapshot.version = max(self.snapshot.version, top, current or 0)
            if rows:
                log.info("principals_applied", rows=len(rows), version=self.snapshot.version)
            return len(rows)

    async def lookup_unknown(self, key_id: str) -> Principal | None:
        """One ``KEY_QUERY`` for an id not in the snapshot (concurrent lookups of
        the same id share one query); remembers a miss in the negative cache."""
        pending = self._lookups.get(key_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Principal | None] = asyncio.get_running_loop().create_future()
        self._lookups[key_id] = future
        try:
            assert self._pool is not None
            row = await self._pool.fetchrow(KEY_QUERY, key_id)
            principal = None if row is None else Principal.from_row(row)
            if principal is None:
                self.snapshot.remember_unknown(key_id)
            else:
                self.snapshot.apply([principal])
            future.set_result(principal)
            return principal
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved
            raise
        finally:
            del self._lookups[key_id]

    async def _safe_refresh(self, reason: str) -> None:
        try:
            await self.refresh()
        except Exception:  # noqa: BLE001 - the next poll retries
            log.warning("principals_refresh_failed", reason=reason, exc_info=True)

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self._poll_interval)
            await self._safe_refresh("poll")

    async def _listen(self) -> None:
        assert self._redis is not None
        delay = 1.0
        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(INVALIDATION_CHANNEL)
                delay = 1.0  # connected: the next loss retries soon again
                # A message may have been missed while (re)subscribing.
                await self._safe_refresh("subscribed")
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self.snapshot.clear_negative()
                        await self._safe_refresh("invalidation")
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - reconnect (backing off to 30 s); the poller covers the gap
                log.warning("invalidation_listener_failed", retry_in_s=delay, exc_info=True)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 30.0)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
