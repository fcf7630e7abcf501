"""Outbound provider kinds: how to address one provider's wire protocol.

One module per catalogue ``provider.kind`` (``openai``, ``azure``,
``anthropic``). A kind answers three questions about a provider, and nothing
else (the retry/fallback loop is ``routing.forward``'s; bodies and answers
are the endpoint's):

- :meth:`ProviderKind.serves` — does it serve this API path natively? A
  route whose kind does not is skipped; a model with no such route is a 400
  ``unsupported`` before admission (nothing billed; ``errors.unsupported``);
- :meth:`ProviderKind.headers` — the fixed request headers (credential);
- :meth:`ProviderKind.url` — the URL of an API path for an upstream model.

API paths are named the OpenAI way, relative to ``/v1``: ``/chat/completions``,
``/completions``, ``/embeddings``, ``/moderations``, ``/responses``, and
Anthropic's ``/messages``, ``/messages/count_tokens``.
"""

from __future__ import annotations

from typing import Protocol

from yarl import URL

from tollway_contracts.catalogue import Provider
from tollway_edge.routing.kinds.anthropic import ANTHROPIC
from tollway_edge.routing.kinds.azure import AZURE
from tollway_edge.routing.kinds.openai import OPENAI


class ProviderKind(Protocol):
    """One wire protocol (see module doc).

    Attributes:
        name: the catalogue's ``kind``.
    """

    name: str

    def serves(self, path: str) -> bool:
        """True when ``path`` (e.g. ``/embeddings``) is served natively."""

    def headers(self, provider: Provider, key: str | None) -> dict[str, str]:
        """The credential (and version) headers for every call to ``provider``."""

    def url(self, base_url: str, provider: Provider, path: str, upstream_model: str) -> URL:
        """The URL of ``path`` for ``upstream_model`` (``base_url`` without trailing slash)."""


KINDS: dict[str, ProviderKind] = {k.name: k for k in (OPENAI, AZURE, ANTHROPIC)}
"""Every kind by its catalogue name."""


def kind_of(provider: Provider) -> ProviderKind:
    """The kind of ``provider`` (the catalogue validates ``kind``)."""
    return KINDS[provider.kind]


__all__ = ["ANTHROPIC", "AZURE", "KINDS", "OPENAI", "ProviderKind", "kind_of"]
