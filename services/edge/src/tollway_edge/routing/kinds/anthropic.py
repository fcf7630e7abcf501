"""``kind: anthropic``: Anthropic's Messages API (``x-api-key``, ``anthropic-version``).

``base_url`` ends in ``/v1`` (``https://api.anthropic.com/v1``). URL:
``{base_url}{path}`` for ``/messages`` and ``/messages/count_tokens``.
Headers: ``x-api-key: <key>`` and ``anthropic-version`` (the provider's
``api_version``, default :data:`DEFAULT_ANTHROPIC_VERSION`; a client's own
``anthropic-version`` replaces it on Anthropic's endpoint). Anthropic serves
no embeddings, legacy completions, moderations or responses.
"""

from __future__ import annotations

from yarl import URL

from tollway_contracts.catalogue import Provider

DEFAULT_ANTHROPIC_VERSION = "2023-06-01"
_SERVED = frozenset({"/messages", "/messages/count_tokens"})


class AnthropicKind:
    """The Anthropic Messages wire protocol (module doc)."""

    name = "anthropic"

    def serves(self, path: str) -> bool:
        """``/messages`` and ``/messages/count_tokens``."""
        return path in _SERVED

    def headers(self, provider: Provider, key: str | None) -> dict[str, str]:
        """``x-api-key`` (when there is a key) and ``anthropic-version``."""
        out = {"anthropic-version": provider.api_version or DEFAULT_ANTHROPIC_VERSION}
        if key:
            out["x-api-key"] = key
        return out

    def url(self, base_url: str, provider: Provider, path: str, upstream_model: str) -> URL:
        """``{base_url}{path}``; the model travels in the body."""
        return URL(base_url + path)


ANTHROPIC = AnthropicKind()
