"""Authentication rules on the in-memory snapshot."""

from __future__ import annotations

import time

import pytest

from tollway_contracts.keys import hash_secret, new_key
from tollway_edge.auth.principals import Principal, Snapshot, check_principal, presented_key, split_presented
from tollway_edge.errors import EdgeError

pytestmark = pytest.mark.unit

PEPPER = b"pepper"


def _principal(key_id: str, secret: str, **kw: object) -> Principal:
    base = dict(
        key_id=key_id,
        secret_hash=hash_secret(PEPPER, key_id, secret),
        tenant_id="t",
        team_id=None,
        user_id=None,
        allowed_models=None,
        revoked=False,
        expires_at=None,
        redaction_policy=None,
        limits=None,
        version=1,
    )
    base.update(kw)
    return Principal(**base)  # type: ignore[arg-type]


def test_presented_key_sources() -> None:
    assert presented_key({"Authorization": "Bearer abc"}) == "abc"
    assert presented_key({"Authorization": "bearer  abc "}) == "abc"
    assert presented_key({"x-api-key": "abc"}) == "abc"
    assert presented_key({"Authorization": "Basic abc", "x-api-key": "k"}) is None
    assert presented_key({}) is None


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer nope"}, {"x-api-key": "tw_short_x"}])
def test_missing_or_malformed_key_is_401(headers: dict) -> None:
    with pytest.raises(EdgeError) as info:
        split_presented(headers)
    assert info.value.status == 401 and info.value.type == "authentication_error"


def test_check_principal() -> None:
    full, parsed = new_key()
    ok = _principal(parsed.key_id, parsed.secret)
    assert check_principal(PEPPER, ok, parsed.key_id, parsed.secret) is ok
    for bad, code in [
        (_principal(parsed.key_id, parsed.secret, revoked=True), "revoked_api_key"),
        (_principal(parsed.key_id, parsed.secret, expires_at=time.time() - 1), "expired_api_key"),
        (_principal(parsed.key_id, "x" * 32), "invalid_api_key"),
    ]:
        with pytest.raises(EdgeError) as info:
            check_principal(PEPPER, bad, parsed.key_id, parsed.secret)
        assert info.value.status == 401 and info.value.code == code


def test_snapshot_keeps_newest_version_and_bounded_negative_cache() -> None:
    snap = Snapshot(negative_cache_size=2)
    old = _principal("aaaaaaaaaaaa", "s", version=5)
    new = _principal("aaaaaaaaaaaa", "s", version=6, revoked=True)
    assert snap.apply([new, old]) == 6
    assert snap.by_key_id["aaaaaaaaaaaa"].revoked
    for key_id in ("k1", "k2", "k3"):
        snap.remember_unknown(key_id)
    assert not snap.is_known_unknown("k1") and snap.is_known_unknown("k3")
    snap.apply([_principal("k3", "s")])
    assert not snap.is_known_unknown("k3")
    snap.clear_negative()
    assert not snap.is_known_unknown("k2")


def test_allow_list() -> None:
    p = _principal("aaaaaaaaaaaa", "s", allowed_models=frozenset({"gpt-4o"}))
    assert p.may_use("gpt-4o") and not p.may_use("gpt-4o-mini")
    assert _principal("aaaaaaaaaaaa", "s").may_use("anything")
