"""Circuit breakers per deployment, shared by every edge process through Valkey (issue 13).

Outcomes are counted locally (no Valkey round trip on the default path);
only state changes travel: a process whose counts open a breaker publishes
``{"key", "state": "open", "until"}`` on :data:`CHANNEL`, and every edge
process (itself included) applies it, so a dead deployment is skipped at
once everywhere. When ``until`` passes the breaker is half-open: exactly one
probe call goes to the deployment, elected across edges with ``SET NX`` on
``tw:breaker:probe:<key>`` (expiring after ``open_seconds``, so a prober that
died does not block the next one); its outcome is published as ``closed`` or
``open`` again. A missed message costs only time: that process then opens
or closes by its own counts. Times on the wire are Unix seconds (UTC).

State (``catalogue.BreakerPolicy``): closed → open when, within
``window_seconds``, at least ``min_calls`` attempts were made and at least
``failure_rate`` of them failed. The state is the gauge
``tollway_breaker_state{deployment}`` (0 closed, 1 half-open, 2 open).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Literal

import orjson
import structlog

from tollway_admission import NodeClient, node_url
from tollway_contracts.catalogue import BreakerPolicy, Deployment
from tollway_edge.metrics import BREAKER_STATE

log = structlog.get_logger("tollway_edge.breaker")

CHANNEL = "tw:breaker:v1"
PROBE_KEY = "tw:breaker:probe:{}"
LISTEN_RETRY_FIRST = 1.0
"""Seconds before resubscribing after the listener's connection failed; doubled per
failure in a row up to :data:`LISTEN_RETRY_MAX`."""
LISTEN_RETRY_MAX = 30.0

Verdict = Literal["allow", "skip", "probe"]
_GAUGE = {"closed": 0, "half_open": 1, "open": 2}


def breaker_key(deployment: Deployment) -> str:
    """The breaker of a deployment: ``<provider>:<upstream model>`` (what fails
    is that model at that provider, whichever catalogue model routes to it)."""
    return f"{deployment.provider}:{deployment.upstream_model}"


class _State:
    __slots__ = ("state", "ok", "failed", "window_start", "open_until", "probing", "probe_started")

    def __init__(self, now: float) -> None:
        self.state = "closed"
        self.ok = 0
        self.failed = 0
        self.window_start = now
        self.open_until = 0.0  # monotonic seconds
        self.probing = False
        self.probe_started = 0.0  # monotonic; a probe silent for open_seconds is given up


class Breakers:
    """Every deployment's breaker in this process.

    Args:
        policy: the catalogue's breaker policy.
        valkey_url: where state changes are published and heard; None = this
            process alone (tests, or no Valkey).
        clock: monotonic seconds (tests inject one).
    """

    def __init__(
        self,
        policy: BreakerPolicy,
        valkey_url: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.policy = policy
        self._valkey_url = valkey_url
        self._clock = clock
        self._states: dict[str, _State] = {}
        self._redis: NodeClient | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._listener: asyncio.Task[None] | None = None

    # -- lifecycle ---------------------------------------------------------------

    async def start(self) -> None:
        """Connect to Valkey and listen for state changes (no-op without Valkey)."""
        if self._valkey_url is None or not self.policy.enabled:
            return
        # a cluster relays PUBLISH to every node: its seed node will do (our client, no redis-py)
        self._redis = NodeClient(node_url(self._valkey_url), service="edge")
        self._listener = asyncio.create_task(self._listen(), name="breaker-listen")

    async def stop(self) -> None:
        """Stop listening and close the connection."""
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        for task in list(self._tasks):
            task.cancel()
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None

    # -- the call path ---------------------------------------------------------

    def check(self, key: str) -> Verdict:
        """``allow`` (closed), ``skip`` (open, or half-open with its probe
        out), or ``probe`` (half-open: call :meth:`claim_probe` first)."""
        st = self._states.get(key)
        if st is None or st.state == "closed" or not self.policy.enabled:
            return "allow"
        if st.state == "open":
            if self._clock() < st.open_until:
                return "skip"
            self._set(key, st, "half_open")
        if st.probing and self._clock() - st.probe_started > self.policy.open_seconds:
            st.probing = False  # the probe call vanished (cancelled): let another one try
        return "skip" if st.probing else "probe"

    async def claim_probe(self, key: str) -> bool:
        """Become the half-open deployment's one probe (across edges when
        shared). False: another call or edge probes; skip the deployment."""
        st = self._states.get(key)
        if st is None or st.state != "half_open" or st.probing:
            return st is None or st.state == "closed"
        if self._redis is not None:
            try:
                won = await self._redis.set(
                    PROBE_KEY.format(key), b"1", nx=True, px=int(self.policy.open_seconds * 1000)
                )
            except Exception:  # noqa: BLE001 - Valkey down: probe locally rather than never
                won = True
            if not won:
                return False
        st.probing = True
        st.probe_started = self._clock()
        return True

    def record(self, key: str, ok: bool | None) -> None:
        """Count one attempt's outcome: True served, False failed, None
        neither (a 429: alive but busy; closes a half-open breaker's probe,
        not counted otherwise). Opens or closes the breaker (and publishes
        the change) when the policy says so."""
        if not self.policy.enabled:
            return
        now = self._clock()
        st = self._states.get(key)
        if st is None:
            st = self._states[key] = _State(now)
        if st.state == "half_open":
            if st.probing:
                self._transition(key, st, "open" if ok is False else "closed", now)
            return
        if st.state == "open" or ok is None:
            return  # open: in-flight calls of before the opening
        if now - st.window_start > self.policy.window_seconds:
            st.ok = st.failed = 0
            st.window_start = now
        if ok:
            st.ok += 1
            return
        st.failed += 1
        total = st.ok + st.failed
        if total >= self.policy.min_calls and st.failed >= self.policy.failure_rate * total:
            self._transition(key, st, "open", now)

    def counts(self, key: str) -> tuple[int, int]:
        """``(served, failed)`` attempts counted in the current window."""
        st = self._states.get(key)
        return (0, 0) if st is None else (st.ok, st.failed)

    def state(self, key: str) -> str:
        """``closed``, ``half_open`` or ``open`` (as last applied; an expired
        ``open`` turns half-open at the next :meth:`check`)."""
        st = self._states.get(key)
        return "closed" if st is None else st.state

    # -- state changes -----------------------------------------------------------

    def _set(self, key: str, st: _State, state: str) -> None:
        if st.state != state:
            log.info("breaker_state", deployment=key, state=state)
        st.state = state
        st.probing = False
        BREAKER_STATE.labels(key).set(_GAUGE[state])

    def _transition(self, key: str, st: _State, state: str, now: float) -> None:
        until = 0.0
        if state == "open":
            st.open_until = now + self.policy.open_seconds
            until = time.time() + self.policy.open_seconds
        st.ok = st.failed = 0
        st.window_start = now
        self._set(key, st, state)
        if self._redis is not None:
            task = asyncio.get_running_loop().create_task(self._publish(key, state, until))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _publish(self, key: str, state: str, until: float) -> None:
        assert self._redis is not None
        try:
            await self._redis.publish(CHANNEL, orjson.dumps({"key": key, "state": state, "until": until}))
            if state == "closed":
                await self._redis.delete(PROBE_KEY.format(key))
        except Exception:  # noqa: BLE001 - the others then decide by their own counts
            log.warning("breaker_publish_failed", deployment=key, state=state, exc_info=True)

    def apply(self, message: bytes) -> None:
        """Apply a state change heard on :data:`CHANNEL` (ignores malformed ones)."""
        try:
            obj = orjson.loads(message)
            key, state, until = str(obj["key"]), obj["state"], float(obj["until"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return
        if state not in ("open", "closed"):
            return
        now = self._clock()
        st = self._states.get(key)
        if st is None:
            st = self._states[key] = _State(now)
        st.ok = st.failed = 0
        st.window_start = now
        if state == "open":
            st.open_until = now + max(until - time.time(), 0.0)
        self._set(key, st, state)

    async def _listen(self) -> None:
        assert self._redis is not None
        delay = LISTEN_RETRY_FIRST
        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                delay = LISTEN_RETRY_FIRST  # connected: the next loss retries soon again
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self.apply(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - reconnect; local counts still work meanwhile
                log.warning("breaker_listener_failed", retry_in_s=delay, exc_info=True)
                await asyncio.sleep(delay)
                delay = min(delay * 2, LISTEN_RETRY_MAX)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
