"""The shared settings base: ``--check-config`` output never shows secrets."""

from __future__ import annotations

import json

import pytest

from tollway_runtime.settings import AdminTokenSettings, PostgresSettings, ServiceSettings, mask_url_password

pytestmark = pytest.mark.unit


class _Settings(ServiceSettings, PostgresSettings, AdminTokenSettings):
    reporting_url: str = "http://reader:pw2@127.0.0.1:8083"


def test_redacted_json_masks_secrets_and_url_passwords() -> None:
    settings = _Settings(
        postgres_dsn="postgresql://tollway:s3cret@127.0.0.1:5432/tollway", admin_token="tok-123"
    )
    text = settings.redacted_json()
    assert "s3cret" not in text and "tok-123" not in text and "pw2" not in text
    data = json.loads(text)
    assert data["postgres_dsn"] == "postgresql://tollway:***@127.0.0.1:5432/tollway"
    assert data["reporting_url"] == "http://reader:***@127.0.0.1:8083"


def test_mask_leaves_urls_without_password_alone() -> None:
    assert mask_url_password("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


def test_check_config_prints_masked_settings_and_exits_0(monkeypatch, capsys) -> None:
    from tollway_runtime.cli import settings_from_cli

    monkeypatch.setenv("TOLLWAY_POSTGRES_DSN", "postgresql://u:hunter2@127.0.0.1/db")
    monkeypatch.setenv("TOLLWAY_ADMIN_TOKEN", "tok-456")
    with pytest.raises(SystemExit) as exit_:
        settings_from_cli(_Settings, service="test", argv=["--check-config"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "hunter2" not in out and "tok-456" not in out
    assert json.loads(out)["postgres_dsn"] == "postgresql://u:***@127.0.0.1/db"


def test_invalid_settings_exit_2_before_anything_starts(monkeypatch, capsys) -> None:
    from tollway_runtime.cli import settings_from_cli

    monkeypatch.delenv("TOLLWAY_ADMIN_TOKEN", raising=False)  # required, no default
    with pytest.raises(SystemExit) as exit_:
        settings_from_cli(_Settings, service="test", argv=[])
    assert exit_.value.code == 2
    assert "TOLLWAY_ADMIN_TOKEN" in capsys.readouterr().err  # names the variable to set


def test_a_failed_extra_check_exits_2(monkeypatch) -> None:
    from tollway_runtime.cli import settings_from_cli

    monkeypatch.setenv("TOLLWAY_ADMIN_TOKEN", "t")
    with pytest.raises(SystemExit) as exit_:
        settings_from_cli(
            _Settings, service="test", argv=["--check-config"], extra_check=lambda s: "bad catalogue"
        )
    assert exit_.value.code == 2
