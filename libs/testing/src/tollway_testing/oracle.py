"""The billing oracle: the provider's own log against the ledger, call by call.

"The oracle is the provider, not Tollway" (issue 10). The fake provider
records every answer it gave (``GET /_fake/requests``: ``request_id`` — the
edge's call id, forwarded upstream as ``x-request-id`` — ``billable``,
``prompt_tokens``, ``completion_tokens``, ``cached_tokens``,
``cache_write_tokens``, ``usage_reported``; meanings in libs/testing/README.md).
The ledger has one row per call (``ledger.usage_records``). :func:`check`
compares them, pure (no I/O), so it is unit-tested on its own:

- a call is every ``request_id`` with at least one ``billable`` provider
  record; its provider count is the sum over those records (a call with
  fallbacks reaches several deployments and is billed their sum: the
  "billable attempts" rule);
- the ledger row must exist, be terminal (``completed``/``failed``) and
  have a non-NULL cost (``lost`` otherwise; ``null_cost`` counts terminal
  rows without a cost);
- where the provider's usage reached the edge (every billable record has
  ``usage_reported``) and the row is not ``usage_estimated``, tokens must be
  equal and the cost must be the catalogue price of the provider's tokens
  (:func:`tollway_contracts.pricing.cost_micro_usd`, rounded up once per
  call, or once per attempt: both are accepted);
- where the row is ``usage_estimated``, each token count must be within
  :class:`Bound` of the provider's count (the edge's estimator's stated bound,
  ``tollway_edge.usage.estimate_prompt_tokens``: about ±25 %, and 3 priming
  tokens above the fake provider's count), and the cost must be the price of
  the row's own tokens;
- a row billed as exact while the provider's usage never arrived, or a
  row marked estimated while it did, is a ``mismatch`` too only when its
  counts are off: the flag itself is reported (``estimated_rows``);
- a row billed by an adopter for a call its dead worker left in flight
  (``error_type = "edge_worker_lost"``, ``tollway_edge.journal.recovery``)
  is estimated too: its prompt within :class:`Bound`, its completion never
  above the provider's and at most :attr:`Bound.relayed_tokens` below it for
  a stream (the tokens relayed in one progress interval, plus those in
  flight when the worker died), anything up to the whole completion for a
  non-streamed call (nothing of it was relayed); counted in ``adopted_rows``.
  The adopter cannot know whether the provider finished: a call whose
  worker died before the provider's answer is billed its prompt estimate,
  while the fake provider bills nothing without a 200; such a row (the
  provider logged the request, not billably) is counted in
  ``adopted_unbilled``, not ``phantom``;
- a non-streamed 200 without the provider's usage is billed by estimate, its
  completion by the text rule (:attr:`Bound.answer_text_tokens`);
- ``duplicates``: more than one ledger row for one request id;
- ``phantom``: a ledger row billing tokens for a request id the provider
  never answered billably (billed for nothing).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tollway_contracts.catalogue import Prices
from tollway_contracts.pricing import cost_micro_usd

__all__ = ["Bound", "CallCheck", "OracleReport", "check"]

TERMINAL = ("completed", "failed")


@dataclass(frozen=True, slots=True)
class Bound:
    """How far an estimated count may be from the provider's (tokens).

    ``|billed - provider| <= ceil(relative × provider) + slack_tokens``. The
    defaults are the edge estimator's stated bound (±25 %, from OpenAI's
    "4 bytes a token" rule) plus its 3 reply-priming tokens.
    """

    relative: float = 0.25
    slack_tokens: int = 3
    relayed_tokens: int | None = None
    """Under-count allowed for the completion of a stream billed by an adopter
    (``edge_worker_lost``), tokens: what the provider sends in one of the
    edge's ``journal_progress_interval_ms``, plus what was in flight; None:
    any under-count (never an over-count)."""

    answer_text_tokens: Callable[[int], int] | None = None
    """For a non-streamed answer billed by estimate (a 200 without usage: the edge
    counts ceil(bytes / 4) of the answer's text, ``usage.estimate_answer_tokens``):
    that rule's count for the provider's answer of N tokens (the fake provider's
    text is known: ``counting.completion_words``). The billed completion must be
    within the bound of it. None: within the bound of the provider's count."""

    def allows(self, billed: int, provider: int) -> bool:
        """True when ``billed`` is within the bound of ``provider``."""
        return abs(billed - provider) <= math.ceil(self.relative * provider) + self.slack_tokens

    def allows_left_call(self, billed: int, provider: int, stream: bool) -> bool:
        """True when the completion billed for a dead worker's call is within its bound."""
        under = provider - billed
        if under < 0:
            return False
        return not stream or self.relayed_tokens is None or under <= self.relayed_tokens


LEFT_CALL_ERROR = "edge_worker_lost"
"""``error_type`` of a row an adopter billed for a call its dead worker left in flight."""


@dataclass(slots=True)
class CallCheck:
    """One call's verdict: ``ok``, ``lost``, ``null_cost``, ``mismatch``,
    ``out_of_bound`` or ``phantom``; the provider's and the ledger's counts."""

    request_id: str
    verdict: str
    provider_tokens: tuple[int, int] | None
    ledger_tokens: tuple[int | None, int | None] | None
    provider_cost: int | None
    ledger_cost: int | None
    estimated: bool = False


@dataclass(slots=True)
class OracleReport:
    """What :func:`check` found. Token and micro-USD differences are summed
    absolute differences over the calls billed exactly (estimated calls are
    judged against their bound instead, and their differences reported
    separately)."""

    calls: int = 0
    ledger_rows: int = 0
    exact_rows: int = 0
    estimated_rows: int = 0
    adopted_rows: int = 0
    adopted_unbilled: int = 0
    token_diff: int = 0
    micro_usd_diff: int = 0
    estimated_token_diff: int = 0
    estimated_micro_usd_diff: int = 0
    duplicates: int = 0
    lost: int = 0
    null_cost: int = 0
    mismatches: int = 0
    out_of_bound: int = 0
    phantom: int = 0
    details: list[CallCheck] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """No loss, duplicate, NULL cost, phantom bill, exact difference or estimate off its bound."""
        return not (
            self.duplicates
            or self.lost
            or self.null_cost
            or self.mismatches
            or self.out_of_bound
            or self.phantom
            or self.token_diff
            or self.micro_usd_diff
        )

    def problems(self) -> list[CallCheck]:
        """The calls whose verdict is not ``ok``."""
        return [d for d in self.details if d.verdict != "ok"]

    def summary(self) -> dict[str, int]:
        """The counters as a dict (for docs/reliability.md and assertion messages)."""
        return {
            k: getattr(self, k)
            for k in (
                "calls",
                "ledger_rows",
                "exact_rows",
                "estimated_rows",
                "adopted_rows",
                "adopted_unbilled",
                "token_diff",
                "micro_usd_diff",
                "estimated_token_diff",
                "estimated_micro_usd_diff",
                "duplicates",
                "lost",
                "null_cost",
                "mismatches",
                "out_of_bound",
                "phantom",
            )
        }


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _record_cost(prices: Prices, r: Mapping[str, Any]) -> int:
    prompt = _int(r.get("prompt_tokens"))
    cached = min(_int(r.get("cached_tokens")), prompt)
    write = min(_int(r.get("cache_write_tokens")), prompt - cached)
    return cost_micro_usd(
        prices,
        prompt_tokens=prompt,
        completion_tokens=_int(r.get("completion_tokens")),
        cached_tokens=cached,
        cache_write_tokens=write,
    )


def check(
    provider_records: Iterable[Mapping[str, Any]],
    ledger_rows: Iterable[Mapping[str, Any]],
    prices_of: Callable[[Mapping[str, Any]], Prices],
    *,
    bound: Bound | None = None,
) -> OracleReport:
    """Compare the provider's billable answers with the ledger's rows.

    Args:
        provider_records: the fake provider's request log (dicts as ``/_fake/requests``
            returns them); non-billable records are ignored.
        ledger_rows: ``ledger.usage_records`` rows (mappings with ``request_id``,
            ``status``, ``prompt_tokens``, ``completion_tokens``, ``cost_micro_usd``,
            ``usage_estimated``, ``model``); ``request_id`` may be a UUID or a str.
        prices_of: the catalogue prices a provider record is billed at (micro-USD
            per million tokens), e.g. by its ``deployment`` or body ``model``.
        bound: the estimator's bound for ``usage_estimated`` rows (default :class:`Bound`).

    Returns:
        An :class:`OracleReport`; ``report.clean`` is the "billed exactly once" verdict.
    """
    bound = bound or Bound()
    billable: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    seen: set[str] = set()
    for r in provider_records:
        seen.add(str(r["request_id"]))
        if r.get("billable"):
            billable[str(r["request_id"])].append(r)
    rows: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in ledger_rows:
        rows[str(row["request_id"])].append(row)

    report = OracleReport(calls=len(billable), ledger_rows=sum(len(v) for v in rows.values()))
    report.duplicates = sum(len(v) - 1 for v in rows.values() if len(v) > 1)

    for rid, recs in billable.items():
        p_prompt = sum(_int(r.get("prompt_tokens")) for r in recs)
        p_completion = sum(_int(r.get("completion_tokens")) for r in recs)
        per_attempt = [_record_cost(prices_of(r), r) for r in recs]
        per_call = cost_micro_usd(
            prices_of(recs[0]),
            prompt_tokens=p_prompt,
            completion_tokens=p_completion,
        )
        p_cost = sum(per_attempt)
        reported = all(r.get("usage_reported") for r in recs)
        terminal = [row for row in rows.get(rid, []) if row.get("status") in TERMINAL]
        if not terminal:
            report.lost += 1
            report.details.append(CallCheck(rid, "lost", (p_prompt, p_completion), None, p_cost, None))
            continue
        row = terminal[0]
        l_prompt, l_completion = row.get("prompt_tokens"), row.get("completion_tokens")
        l_cost = row.get("cost_micro_usd")
        estimated = bool(row.get("usage_estimated"))
        check_ = CallCheck(
            rid, "ok", (p_prompt, p_completion), (l_prompt, l_completion), p_cost, l_cost, estimated
        )
        report.details.append(check_)
        if l_cost is None or l_prompt is None or l_completion is None:
            report.null_cost += 1
            check_.verdict = "null_cost"
            continue
        tok_diff = abs(l_prompt - p_prompt) + abs(l_completion - p_completion)
        usd_diff = min(abs(l_cost - p_cost), abs(l_cost - per_call))
        if estimated:
            report.estimated_rows += 1
            report.estimated_token_diff += tok_diff
            report.estimated_micro_usd_diff += usd_diff
            own_cost = cost_micro_usd(
                prices_of(recs[0]), prompt_tokens=l_prompt, completion_tokens=l_completion
            )
            if row.get("error_type") == LEFT_CALL_ERROR:
                report.adopted_rows += 1
                completion_ok = bound.allows_left_call(l_completion, p_completion, bool(row.get("stream")))
            elif (
                bound.answer_text_tokens is not None
                and row.get("status") == "completed"
                and not row.get("stream")
            ):
                completion_ok = bound.allows(l_completion, bound.answer_text_tokens(p_completion))
            else:
                completion_ok = bound.allows(l_completion, p_completion)
            if not (bound.allows(l_prompt, p_prompt) and completion_ok):
                report.out_of_bound += 1
                check_.verdict = "out_of_bound"
            elif l_cost != own_cost:
                report.mismatches += 1
                check_.verdict = "mismatch"
            continue
        report.exact_rows += 1
        if not reported and tok_diff == 0:
            continue  # billed the provider's count although no usage arrived: exact anyway
        report.token_diff += tok_diff
        report.micro_usd_diff += usd_diff
        if tok_diff or usd_diff:
            report.mismatches += 1
            check_.verdict = "mismatch"

    for rid, rs in rows.items():
        if rid in billable:
            continue
        for row in rs:
            if row.get("error_type") == LEFT_CALL_ERROR and rid in seen:
                report.adopted_unbilled += 1  # the provider heard of it; its worker died before the answer
                continue
            if (
                _int(row.get("prompt_tokens"))
                or _int(row.get("completion_tokens"))
                or _int(row.get("cost_micro_usd"))
            ):
                report.phantom += 1
                report.details.append(
                    CallCheck(
                        rid,
                        "phantom",
                        None,
                        (row.get("prompt_tokens"), row.get("completion_tokens")),
                        None,
                        row.get("cost_micro_usd"),
                    )
                )
    return report
