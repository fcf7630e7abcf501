"""Unit tests: id formats, admin bodies, env file writing."""

from __future__ import annotations

import os
import stat
from datetime import datetime

import pytest
from pydantic import ValidationError

from tollway_contracts.admin import ID_RE, ApiKey, KeyCreate, KeyCreated, TenantCreate
from tollway_contracts.redaction import RedactionPolicy
from tollway_quota.cli import write_env_file
from tollway_quota.ids import new_team_id, new_tenant_id, new_user_id
from tollway_quota.settings import QuotaSettings

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("make", "prefix"), [(new_tenant_id, "tn_"), (new_team_id, "tm_"), (new_user_id, "us_")]
)
def test_ids_have_their_prefix_and_format(make, prefix) -> None:  # noqa: ANN001
    ids = {make() for _ in range(200)}
    assert len(ids) == 200
    for i in ids:
        assert i.startswith(prefix)
        assert ID_RE.match(i)


def test_requests_are_strict() -> None:
    with pytest.raises(ValidationError):
        TenantCreate(name="x", extra_field=1)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        TenantCreate(name="")
    with pytest.raises(ValidationError):  # a naive expiry is ambiguous
        KeyCreate(tenant_id="tn_x", name="k", expires_at=datetime(2030, 1, 1))  # noqa: DTZ001
    assert KeyCreate(tenant_id="tn_x", name="k").allowed_models is None


def test_listed_key_has_no_secret_fields() -> None:
    fields = set(ApiKey.model_fields)
    assert not {"key", "secret", "secret_hash"} & fields
    assert "key" in KeyCreated.model_fields


def test_responses_tolerate_new_fields() -> None:
    key = ApiKey.model_validate(
        {
            "key_id": "abcdefabcdef",
            "tenant_id": "tn_a",
            "name": "k",
            "created_at": "2026-01-01T00:00:00Z",
            "version": 3,
            "something_new": True,
            "redaction_policy": {"mode": "redact"},
        }
    )
    assert key.redaction_policy == RedactionPolicy(mode="redact")


def test_settings_read_shared_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOLLWAY_ADMIN_TOKEN", "s3cr3t-admin")
    monkeypatch.setenv("TOLLWAY_KEY_PEPPER", "p")
    monkeypatch.setenv("TOLLWAY_QUOTA_PORT", "9999")
    s = QuotaSettings()
    assert s.port == 9999 and s.host == "127.0.0.1"
    assert s.admin_token.get_secret_value() == "s3cr3t-admin"
    assert "s3cr3t-admin" not in repr(s) + repr(s.admin_token)


def test_env_file_is_private_and_exact(tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / "sub" / "dev.env"
    path.parent.mkdir()
    path.write_text("OLD=1\n")
    os.chmod(path, 0o644)
    write_env_file(path, {"A": "1", "B": "two"})
    assert path.read_text() == "A=1\nB=two\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_settings_refuse_empty_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOLLWAY_ADMIN_TOKEN", "")
    monkeypatch.setenv("TOLLWAY_KEY_PEPPER", "p")
    with pytest.raises(ValidationError):
        QuotaSettings()
