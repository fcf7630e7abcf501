"""Answer scans of concurrent streams coalesced into shared redactor requests
(``streaming.holdback``: one round trip per released chunk per stream would
otherwise queue at the redactor when many streams are scanned at once).

At most ``max_in_flight`` requests are in flight; a scan that arrives while
they are all busy waits and leaves with every other waiting scan of the same
policy in the next request. A lone stream never waits (its scan goes at once).
Text ids are prefixed per scan and restored in each scan's answer; placeholder
numbering is the edge's own (``redaction.answers.Placeholders``), so merging
changes no output.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from tollway_contracts.redaction import RedactionPolicy, RedactionText, RedactResponse
from tollway_edge.redaction.texts import TextRef


class _Client(Protocol):
    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse: ...


@dataclass(slots=True)
class _Scan:
    policy: RedactionPolicy
    texts: Sequence[TextRef | RedactionText]
    deadline_ms: float
    future: asyncio.Future[RedactResponse]


class CoalescingRedactor:
    """A redactor client (``step.RedactorLike``) over ``client`` that merges
    concurrent scans (module doc).

    Args:
        client: the redactor pool.
        max_in_flight: requests in flight at most (about the redactors' worker count).
    """

    def __init__(self, client: _Client, max_in_flight: int) -> None:
        self._client = client
        self._max = max(1, max_in_flight)
        self._in_flight = 0
        self._waiting: list[_Scan] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        """As ``RedactorPool.redact`` (same errors), possibly in one request with other scans."""
        future: asyncio.Future[RedactResponse] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Scan(policy, texts, deadline_ms, future))
        self._pump()
        return await future

    def _pump(self) -> None:
        """Send waiting scans while fewer than ``max_in_flight`` requests are out."""
        while self._waiting and self._in_flight < self._max:
            policy = self._waiting[0].policy
            batch = [s for s in self._waiting if s.policy == policy and not s.future.done()]
            self._waiting = [s for s in self._waiting if s.policy != policy and not s.future.done()]
            if not batch:
                continue
            self._in_flight += 1
            task = asyncio.get_running_loop().create_task(self._send(policy, batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _send(self, policy: RedactionPolicy, batch: list[_Scan]) -> None:
        """One request for ``batch``; each scan gets its own texts' results (or the error)."""
        texts = [TextRef(f"{i}:{t.id}", t.text) for i, s in enumerate(batch) for t in s.texts]
        try:
            answer = await self._client.redact(policy, texts, min(s.deadline_ms for s in batch))
        except Exception as exc:  # noqa: BLE001 - handed to every waiting scan, which raises it
            for s in batch:
                if not s.future.done():
                    s.future.set_exception(exc)
        else:
            parts: list[list[Any]] = [[] for _ in batch]
            for r in answer.results:
                n, _, orig = r.id.partition(":")
                parts[int(n)].append(msgspec.structs.replace(r, id=orig))
            for s, results in zip(batch, parts, strict=True):
                if not s.future.done():
                    s.future.set_result(msgspec.structs.replace(answer, results=results))
        finally:
            self._in_flight -= 1
            self._pump()
