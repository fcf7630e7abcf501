"""The routing catalogue: providers, models, routes and prices (DESIGN.md).

A YAML file versioned with the deployment. Shape::

    providers:
      openai:
        kind: openai            # openai | azure | anthropic
        base_url: https://api.openai.com/v1
        api_key_env: OPENAI_API_KEY   # credentials by env-var name, never inline
        timeout_seconds: 600
    models:
      gpt-4o-mini:
        max_output_tokens: 16384
        prices:                 # integer micro-USD per million tokens
          input: 150000
          cached_input: 75000
          output: 600000
        routes:                 # tried in order; later ones are fallbacks
          - provider: openai
            upstream_model: gpt-4o-mini

Validated at start with :func:`load_catalogue`; a bad file stops the service
with the validation error. Model names are the names clients send.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, HttpUrl, model_validator

ProviderKind = Literal["openai", "azure", "anthropic"]
MicroUsdPerMillion = Annotated[int, Field(ge=0, description="micro-USD per 1,000,000 tokens")]


class Provider(BaseModel):
    """One upstream provider endpoint.

    Attributes:
        kind: wire protocol: ``openai`` (and any OpenAI-compatible server),
            ``azure`` (OpenAI on Azure), ``anthropic``.
        base_url: URL prefix to which ``/chat/completions`` etc. are appended.
        api_key_env: name of the environment variable holding the credential;
            null for servers that need none (e.g. a local fake provider).
        timeout_seconds: whole-call timeout for a non-streaming call, and the
            time allowed to first byte for a stream.
        connect_timeout_seconds: TCP/TLS connect timeout.
        max_connections: size of the keep-alive pool to this provider.
        api_version: the API version the edge names: ``azure``'s
            ``api-version`` query parameter (default ``2024-10-21``),
            ``anthropic``'s ``anthropic-version`` header when the client sent
            none (default ``2023-06-01``); unused for ``openai``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ProviderKind = "openai"
    base_url: HttpUrl
    api_key_env: str | None = None
    timeout_seconds: float = Field(default=600.0, gt=0)
    connect_timeout_seconds: float = Field(default=10.0, gt=0)
    max_connections: int = Field(default=2048, ge=1)
    api_version: str | None = None

    def api_key(self) -> str | None:
        """The credential read from ``api_key_env`` at call time, or None.

        Raises:
            KeyError: ``api_key_env`` is set but the variable is missing.
        """
        if self.api_key_env is None:
            return None
        return os.environ[self.api_key_env]


class Prices(BaseModel):
    """Prices of a model in integer micro-USD per million tokens.

    ``input`` applies to uncached prompt tokens, ``cached_input`` to cached
    prompt tokens (defaults to ``input``), ``cache_write_input`` to prompt
    tokens written to the provider's prompt cache (Anthropic's
    ``cache_creation_input_tokens``, billed 1.25x input for a 5-minute cache;
    defaults to ``input``), ``output`` to completion tokens (reasoning tokens
    included, as OpenAI bills them).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: MicroUsdPerMillion
    cached_input: MicroUsdPerMillion | None = None
    cache_write_input: MicroUsdPerMillion | None = None
    output: MicroUsdPerMillion

    @property
    def cached_input_or_input(self) -> int:
        """The cached-input price, falling back to the input price."""
        return self.input if self.cached_input is None else self.cached_input

    @property
    def cache_write_input_or_input(self) -> int:
        """The cache-write price, falling back to the input price."""
        return self.input if self.cache_write_input is None else self.cache_write_input


class Route(BaseModel):
    """One way to serve a model: a provider and the model name it knows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: str
    upstream_model: str


class Model(BaseModel):
    """A model clients may request.

    Attributes:
        routes: tried in order; a later route is a fallback when an earlier
            provider is unreachable or answers 429/5xx.
        prices: integer micro-USD per million tokens.
        max_output_tokens: the model's output cap, tokens (the admission
            upper bound when a request sets no ``max_tokens``).
        context_window: prompt + output limit, tokens, where known.
        owned_by: shown in ``GET /v1/models``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    routes: list[Route] = Field(min_length=1)
    prices: Prices
    max_output_tokens: int = Field(default=4096, ge=1)
    context_window: int | None = Field(default=None, ge=1)
    owned_by: str = "tollway"


class Catalogue(BaseModel):
    """The whole routing catalogue.

    Raises:
        pydantic.ValidationError: unknown fields, negative prices, or a route
            naming a provider that is not defined.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1] = 1
    providers: dict[str, Provider]
    models: dict[str, Model]

    @model_validator(mode="after")
    def _routes_name_known_providers(self) -> Catalogue:
        for name, model in self.models.items():
            for route in model.routes:
                if route.provider not in self.providers:
                    raise ValueError(f"model {name!r} routes to unknown provider {route.provider!r}")
        return self


def load_catalogue(path: str | Path) -> Catalogue:
    """Read and validate a catalogue YAML file.

    Raises:
        OSError: the file cannot be read.
        yaml.YAMLError: the file is not YAML.
        pydantic.ValidationError: the content does not match the schema.
    """
    text = Path(path).read_text(encoding="utf-8")
    return Catalogue.model_validate(yaml.safe_load(text))
