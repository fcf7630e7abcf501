"""The layout of admission data in Valkey. This module and ``lua/*.lua`` are
the only places that know it; everything else goes through
:class:`tollway_admission.Admission`.

Every key carries the tenant as a hash tag, ``tw:{<tenant_id>}:...``, so all
keys one admission touches live in one slot and the scripts run unchanged on
Valkey Cluster (DESIGN.md, "Rules that keep it correct when it scales out").

=====================================================  ======  ===============================================
key                                                    type    content, expiry
=====================================================  ======  ===============================================
``tw:{T}:rpm:<scope>:<minute start, epoch s>``         string  admitted calls in that UTC minute; expires 60 s
                                                               after the minute ends
``tw:{T}:tpm:<scope>:<minute start, epoch s>``         string  tokens reserved (then settled) by calls admitted
                                                               in that minute; same expiry
``tw:{T}:conc:<scope>``                                zset    request id -> reservation deadline (epoch ms);
                                                               members past their deadline are pruned by admit;
                                                               expires at the latest deadline
``tw:{T}:budget:<scope>:<period>:<start, epoch s>``    hash    ``spent`` (settled micro-USD, seeded from the
                                                               ledger) and ``reserved`` (in-flight micro-USD);
                                                               created only by the seed script; expires
                                                               ``budget_grace`` after the period ends
``tw:{T}:res:<request id>``                            hash    the reservation record: ``tokens``, ``cost``,
                                                               ``deadline`` (epoch ms), ``slot`` ("1" while a
                                                               concurrency slot is held), ``c`` (JSON list of
                                                               ``[kind, key, limit, shadow]`` for every tpm,
                                                               budget and concurrency counter reserved on);
                                                               expires ``record_retention`` after the deadline
``tw:{T}:settled:<request id>``                        string  ``"<tokens>:<cost>"`` settled; outlives the record
``tw:{T}:res-deadlines``                               zset    request id -> deadline (epoch ms) of unsettled
                                                               reservations, for reconciliation
``tw:{T}:writeback:<write-back id>``                   string  a local-mode write-back applied ("add"/"skip");
                                                               expires after the longest budget period + grace
``tw:edges``, ``tw:epoch`` (not a tenant's)            zset,   edge processes alive (registry.py); Valkey's
                                                       string  data epoch
=====================================================  ======  ===============================================

``<scope>`` is ``<kind>=<id>`` (``key``, ``user``, ``team``, ``tenant``),
plus ``@<model>`` when the limit is narrowed to one model; ids and models are
percent-encoded so no separator can be forged.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import quote

from tollway_contracts.limits import Limit


def _q(s: str) -> str:
    return quote(s, safe="")


def prefix(tenant_id: str) -> str:
    """``tw:{<tenant_id>}:`` — the hash-tagged prefix of a tenant's keys.

    Raises:
        ValueError: the tenant id is empty or contains ``{`` or ``}`` (it
            would break the hash tag).
    """
    if not tenant_id or "{" in tenant_id or "}" in tenant_id:
        raise ValueError(f"tenant id unusable as a hash tag: {tenant_id!r}")
    return f"tw:{{{tenant_id}}}:"


def scope_token(limit: Limit) -> str:
    """``<kind>=<id>[@<model>]`` identifying the counter set of one limit."""
    return _scope_token(limit.scope, limit.scope_id, limit.model)


@lru_cache(maxsize=65536)
def _scope_token(scope: str, scope_id: str, model: str | None) -> str:
    # Memoised: the same few scopes come back on every call (percent-encoding
    # was a visible share of admit's CPU).
    token = f"{scope}={_q(scope_id)}"
    if model is not None:
        token += f"@{_q(model)}"
    return token


def rpm_key(tenant_id: str, limit: Limit, minute_start_s: int) -> str:
    """Requests-per-minute counter of ``limit``'s scope for one UTC minute."""
    return f"{prefix(tenant_id)}rpm:{scope_token(limit)}:{minute_start_s}"


def tpm_key(tenant_id: str, limit: Limit, minute_start_s: int) -> str:
    """Tokens-per-minute counter of ``limit``'s scope for one UTC minute."""
    return f"{prefix(tenant_id)}tpm:{scope_token(limit)}:{minute_start_s}"


def conc_key(tenant_id: str, limit: Limit) -> str:
    """Concurrency slot holders of ``limit``'s scope (zset)."""
    return f"{prefix(tenant_id)}conc:{scope_token(limit)}"


def budget_key(tenant_id: str, limit: Limit, period_start_s: int) -> str:
    """Spend counter (hash ``spent``/``reserved``) of one budget period."""
    return f"{prefix(tenant_id)}budget:{scope_token(limit)}:{limit.budget_period}:{period_start_s}"


def record_key(tenant_id: str, request_id: str) -> str:
    """Reservation record of one call."""
    return f"{prefix(tenant_id)}res:{request_id}"


def settled_key(tenant_id: str, request_id: str) -> str:
    """Settled marker of one call (outlives the record)."""
    return f"{prefix(tenant_id)}settled:{request_id}"


def deadlines_key(tenant_id: str) -> str:
    """Index of a tenant's unsettled reservations by deadline."""
    return f"{prefix(tenant_id)}res-deadlines"


def writeback_key(tenant_id: str, writeback_id: str) -> str:
    """Applied marker of one local-mode write-back (writeback.lua)."""
    return f"{prefix(tenant_id)}writeback:{_q(writeback_id)}"


DEADLINES_SCAN_PATTERN = "tw:{*}:res-deadlines"
"""Glob matching every tenant's deadline index (for reconciliation sweeps)."""
