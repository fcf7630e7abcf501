"""routing.kinds: which API paths each provider kind serves, its URLs and credential headers."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from tollway_contracts.catalogue import Provider
from tollway_edge.routing.kinds import ANTHROPIC, AZURE, OPENAI, kind_of


def test_openai_kind_bearer_and_plain_paths() -> None:
    p = Provider(kind="openai", base_url="http://h/v1")
    assert kind_of(p) is OPENAI
    assert OPENAI.headers(p, "k") == {"Authorization": "Bearer k"} and OPENAI.headers(p, None) == {}
    assert str(OPENAI.url("http://h/v1", p, "/embeddings", "m")) == "http://h/v1/embeddings"
    assert OPENAI.serves("/moderations") and not OPENAI.serves("/messages")


def test_azure_kind_deployment_urls_api_version_api_key() -> None:
    p = Provider(kind="azure", base_url="https://r.openai.azure.com", api_version="2025-01-01")
    assert AZURE.headers(p, "k") == {"api-key": "k"}
    url = AZURE.url("https://r.openai.azure.com", p, "/chat/completions", "my dep")
    assert (
        str(url)
        == "https://r.openai.azure.com/openai/deployments/my%20dep/chat/completions?api-version=2025-01-01"
    )
    url = AZURE.url("https://r.openai.azure.com", p, "/responses", "d")
    assert str(url) == "https://r.openai.azure.com/openai/responses?api-version=2025-01-01"
    default = Provider(kind="azure", base_url="https://r")
    assert AZURE.url("https://r", default, "/embeddings", "d").query["api-version"] == "2024-10-21"
    assert not AZURE.serves("/moderations")


def test_anthropic_kind_x_api_key_and_version() -> None:
    p = Provider(kind="anthropic", base_url="https://api.anthropic.com/v1")
    assert ANTHROPIC.headers(p, "k") == {"anthropic-version": "2023-06-01", "x-api-key": "k"}
    assert str(ANTHROPIC.url("https://api.anthropic.com/v1", p, "/messages", "c")).endswith("/v1/messages")
    assert ANTHROPIC.serves("/messages/count_tokens")
    assert not any(ANTHROPIC.serves(x) for x in ("/embeddings", "/completions", "/moderations", "/responses"))


async def test_credentials_from_a_mounted_file(tmp_path: Path) -> None:
    """A provider's key may come from a mounted Secret file instead of an env var
    (issue 13); a missing or empty file leaves the provider unusable, never keyless."""
    from tollway_contracts.catalogue import catalogue_from_dict
    from tollway_edge.routing.upstream import close_upstreams, open_upstreams

    secret = tmp_path / "api-key"
    secret.write_text("sk-from-file\n")
    providers = {
        "file": {"kind": "anthropic", "base_url": "http://h/v1", "api_key_file": str(secret)},
        "gone": {"kind": "openai", "base_url": "http://h/v1", "api_key_file": str(tmp_path / "missing")},
    }
    catalogue = catalogue_from_dict({"providers": providers, "models": {}})
    upstreams = await open_upstreams(catalogue)
    try:
        assert upstreams["file"].usable and upstreams["file"].headers["x-api-key"] == "sk-from-file"
        assert not upstreams["gone"].usable and "Authorization" not in upstreams["gone"].headers
    finally:
        await close_upstreams(upstreams)
    secret.write_text("  \n")
    with pytest.raises(KeyError):
        msgspec.convert(providers["file"], Provider).api_key()
    with pytest.raises(ValueError, match="not both"):
        Provider(base_url="http://h/v1", api_key_env="X", api_key_file=str(secret))
