"""Alert webhooks: a bounded queue drained by a few workers, each POST retried
with backoff (tenacity).

Why a queue: a slow or dead receiver must delay nothing — not settlement,
not the next alert. :meth:`WebhookNotifier.submit` never waits; when the
queue is full the alert is dropped from webhook delivery (it is still on
``tollway.alerts.v1``) and counted in ``dropped``.

Delivery: ``POST <url>`` with the :class:`~tollway_contracts.alerts.Alert`
JSON, ``Content-Type: application/json``, ``X-Tollway-Alert-Id``. A 2xx is
success; 429, 5xx and connection errors are retried up to ``attempts`` times
with exponential backoff; other 4xx are not retried. At least once: a
receiver dedupes by ``alert_id``.
"""

from __future__ import annotations

import asyncio
import contextlib

import httpx
import structlog
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential

from tollway_contracts.alerts import Alert

log = structlog.get_logger("tollway_quota.webhooks")


class _Retryable(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, (_Retryable, httpx.TransportError))


class WebhookNotifier:
    """Bounded webhook delivery.

    Args:
        client: an ``httpx.AsyncClient`` (its timeout bounds each attempt).
        queue_size: alerts waiting at most; more are dropped.
        workers: concurrent deliveries.
        attempts: tries per alert (>= 1).
        backoff_initial_seconds, backoff_max_seconds: exponential backoff.
    """

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        queue_size: int = 1000,
        workers: int = 2,
        attempts: int = 5,
        backoff_initial_seconds: float = 0.5,
        backoff_max_seconds: float = 30.0,
    ) -> None:
        self._client = client
        self._queue: asyncio.Queue[tuple[str, Alert]] = asyncio.Queue(maxsize=queue_size)
        self._workers = workers
        self._attempts = max(1, attempts)
        self._wait = wait_exponential(multiplier=backoff_initial_seconds, max=backoff_max_seconds)
        self._tasks: list[asyncio.Task[None]] = []
        self.delivered = 0
        self.failed = 0
        self.dropped = 0

    def start(self) -> None:
        """Start the workers (on the running loop)."""
        self._tasks = [asyncio.create_task(self._work(), name=f"webhook-{i}") for i in range(self._workers)]

    def submit(self, url: str, alert: Alert) -> bool:
        """Queue an alert for ``url``; False (dropped, logged) when the queue is full."""
        try:
            self._queue.put_nowait((url, alert))
        except asyncio.QueueFull:
            self.dropped += 1
            log.warning("webhook_dropped", tenant_id=alert.tenant_id, alert_id=str(alert.alert_id))
            return False
        return True

    async def stop(self, drain_seconds: float = 5.0) -> None:
        """Give queued deliveries up to ``drain_seconds``, then cancel the workers."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._queue.join(), drain_seconds)
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t

    async def _work(self) -> None:
        while True:
            url, alert = await self._queue.get()
            try:
                await self._deliver(url, alert)
            finally:
                self._queue.task_done()

    async def _deliver(self, url: str, alert: Alert) -> None:
        body = alert.to_json()
        headers = {"Content-Type": "application/json", "X-Tollway-Alert-Id": str(alert.alert_id)}
        try:
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(self._attempts),
                wait=self._wait,
                retry=retry_if_exception(_retryable),
                reraise=True,
            ):
                with attempt:
                    r = await self._client.post(url, content=body, headers=headers)
                    if r.status_code == 429 or r.status_code >= 500:
                        raise _Retryable(r.status_code)
                    if r.status_code >= 400:
                        raise httpx.HTTPStatusError(f"HTTP {r.status_code}", request=r.request, response=r)
        except Exception as exc:  # noqa: BLE001 - logged; the alert is on Kafka regardless
            self.failed += 1
            log.warning(
                "webhook_failed",
                tenant_id=alert.tenant_id,
                alert_id=str(alert.alert_id),
                error=type(exc).__name__,
                detail=str(exc)[:200],
            )
            return
        self.delivered += 1
        log.info("webhook_delivered", tenant_id=alert.tenant_id, alert_id=str(alert.alert_id))
