"""``kind: openai``: OpenAI and any OpenAI-compatible server (vLLM, Ollama, llama.cpp).

URL: ``{base_url}{path}`` (``base_url`` ends in ``/v1``). Credential:
``Authorization: Bearer <key>`` (none when ``api_key_env`` is null).
"""

from __future__ import annotations

from yarl import URL

from tollway_contracts.catalogue import Provider

_SERVED = frozenset({"/chat/completions", "/completions", "/embeddings", "/moderations", "/responses"})


class OpenAIKind:
    """The OpenAI wire protocol (module doc)."""

    name = "openai"

    def serves(self, path: str) -> bool:
        """Chat, legacy completions, embeddings, moderations, responses."""
        return path in _SERVED

    def headers(self, provider: Provider, key: str | None) -> dict[str, str]:
        """``Authorization: Bearer <key>`` when there is a key."""
        return {"Authorization": f"Bearer {key}"} if key else {}

    def url(self, base_url: str, provider: Provider, path: str, upstream_model: str) -> URL:
        """``{base_url}{path}``; the model travels in the body."""
        return URL(base_url + path)


OPENAI = OpenAIKind()
