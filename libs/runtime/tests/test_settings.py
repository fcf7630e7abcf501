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
