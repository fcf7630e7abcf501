"""The redactor client: ``POST /v1/redact`` with a deadline, over one or
several redactor processes with failover (``TOLLWAY_EDGE_REDACTOR_URLS``).

Every failure is :class:`RedactionUnavailable`, which the edge turns into a
503 and sends nothing to the provider (fail closed).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence

import aiohttp
import orjson
import structlog
from pydantic import ValidationError

from tollway_contracts.redaction import (
    REDACT_PATH,
    RedactionPolicy,
    RedactionText,
    RedactRequest,
    RedactResponse,
)
from tollway_edge.redaction.texts import RedactionUnavailable, TextRef, check_answer

log = structlog.get_logger("tollway_edge.redaction")


class RedactorClient:
    """Async client of the redactor's ``POST /v1/redact``.

    Args:
        base_url: e.g. ``http://127.0.0.1:8081``.
        session: a shared ``aiohttp.ClientSession`` (the edge's; not closed
            here). When None, the client creates its own; call :meth:`close`.
    """

    def __init__(self, base_url: str, session: aiohttp.ClientSession | None = None) -> None:
        self._url = base_url.rstrip("/") + REDACT_PATH
        self._session = session
        self._owns_session = session is None

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        """Analyse and anonymise ``texts`` (all texts of one call) under ``policy``.

        Args:
            deadline_ms: total time allowed for the call, ms (connect + answer).

        Returns:
            The redactor's answer, checked to contain every text id.

        Raises:
            RedactionUnavailable: connection error, no answer within the
                deadline, a non-200 status, a malformed body, or a missing text.
        """
        if self._session is None:
            self._session = aiohttp.ClientSession()
        payload = RedactRequest(policy=policy, texts=[RedactionText(id=t.id, text=t.text) for t in texts])
        timeout = aiohttp.ClientTimeout(total=max(deadline_ms, 1.0) / 1000.0)
        try:
            async with self._session.post(
                self._url,
                data=payload.__pydantic_serializer__.to_json(payload),
                headers={"content-type": "application/json"},
                timeout=timeout,
            ) as resp:
                raw = await resp.read()
                if resp.status != 200:
                    raise RedactionUnavailable(f"redactor answered {resp.status}")
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            raise RedactionUnavailable(f"redactor unreachable: {type(exc).__name__}") from exc
        try:
            answer = RedactResponse.model_validate(orjson.loads(raw))
        except (orjson.JSONDecodeError, ValidationError) as exc:
            raise RedactionUnavailable("malformed redactor answer") from exc
        check_answer(list(payload.texts), answer)
        return answer

    async def prime(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> bool:
        """Warm the redactor's detection cache with texts the client will send
        back next turn (the assistant's answer as the client received it),
        so the next call analyses only the new user message.

        Meant for ``asyncio.create_task`` after a response completes; never
        raises.

        Returns:
            True when the redactor analysed (or already had) the texts.
        """
        if not texts or policy.mode == "off":
            return False
        try:
            await self.redact(policy, texts, deadline_ms)
        except RedactionUnavailable:
            return False
        return True

    async def close(self) -> None:
        """Close the session if this client created it."""
        if self._owns_session and self._session is not None:
            await self._session.close()
            self._session = None


class RedactorPool:
    """Several redactor processes used as one client (``redact`` and ``prime``
    have :class:`RedactorClient`'s signatures).

    Args:
        urls: base URLs, e.g. ``["http://127.0.0.1:8081", "http://127.0.0.1:8082"]``.
        session: the shared HTTP session (owned by the caller).

    Calls go round-robin; a connection error (refused, reset, DNS) moves to
    the next URL with what is left of the deadline; a timeout, a non-200 or a
    malformed answer does not fail over (the deadline is the caller's).
    """

    def __init__(self, urls: Sequence[str], session: aiohttp.ClientSession) -> None:
        if not urls:
            raise ValueError("at least one redactor URL is required")
        self.clients = [RedactorClient(u, session) for u in urls]
        self._next = itertools.cycle(range(len(self.clients)))

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        """As :meth:`RedactorClient.redact`, over the pool.

        Raises:
            RedactionUnavailable: every tried URL failed, or the deadline passed.
        """
        end = time.perf_counter() + deadline_ms / 1000.0
        first = next(self._next)
        last_exc: RedactionUnavailable | None = None
        for i in range(len(self.clients)):
            left_ms = (end - time.perf_counter()) * 1000.0
            if left_ms <= 0:
                break
            client = self.clients[(first + i) % len(self.clients)]
            try:
                return await client.redact(policy, texts, left_ms)
            except RedactionUnavailable as exc:
                last_exc = exc
                if not isinstance(exc.__cause__, aiohttp.ClientConnectionError) or isinstance(
                    exc.__cause__, aiohttp.ServerTimeoutError
                ):
                    raise
                log.warning("redactor_unreachable", url_index=(first + i) % len(self.clients))
        raise last_exc or RedactionUnavailable("redaction deadline passed")

    async def prime(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> bool:
        """As :meth:`RedactorClient.prime` (never raises)."""
        if not texts or policy.mode == "off":
            return False
        try:
            await self.redact(policy, texts, deadline_ms)
        except RedactionUnavailable:
            return False
        return True
