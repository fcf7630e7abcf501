"""The routing catalogue: providers, models, routes and prices (DESIGN.md).

A YAML file versioned with the deployment. Shape::

    providers:
      openai:
        kind: openai            # openai | azure | anthropic
        base_url: https://api.openai.com/v1
        api_key_env: OPENAI_API_KEY   # credentials by env-var name, never inline
        # api_key_file: /var/run/secrets/openai/api-key   # or a mounted file
        timeout_seconds: 600
    models:
      gpt-4o-mini:
        max_output_tokens: 16384
        prices:                 # integer micro-USD per million tokens
          input: 150000
          cached_input: 75000
          output: 600000
        deployments:            # ordered by priority (lower first), weighted within one
          - name: openai-us
            provider: openai
            upstream_model: gpt-4o-mini
            priority: 0
            weight: 3
            regions: [us]
            timeouts: {connect_seconds: 2, first_byte_seconds: 20, idle_seconds: 30, total_seconds: 600}
            retry: {max_attempts: 2, retryable_statuses: [429, 502, 503, 504]}
          - {name: azure-eu, provider: azure-eu, upstream_model: gpt-4o-mini, priority: 1, regions: [eu]}

A model's older ``routes:`` list (``{provider, upstream_model}``, tried in
order) still loads: each route becomes an unnamed deployment whose priority
is its position, so the order is kept.

Validated at start with :func:`load_catalogue`; a bad file stops the service
with the validation error. The edge reloads the file when it changes (its
``catalogue_live``): a bad file then keeps the previous catalogue. Model names are the names clients send.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Annotated, Any, Literal

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
        api_key_file: path of a file holding the credential (a mounted
            Kubernetes Secret, a Docker/Podman secret); surrounding whitespace
            is stripped. At most one of ``api_key_env`` and ``api_key_file``.
            Read when the edge builds the provider's connection (start, and a
            catalogue reload that changes this provider).
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
    api_key_file: str | None = None
    timeout_seconds: float = Field(default=600.0, gt=0)
    connect_timeout_seconds: float = Field(default=10.0, gt=0)
    max_connections: int = Field(default=2048, ge=1)
    api_version: str | None = None

    @model_validator(mode="after")
    def _one_credential_source(self) -> Provider:
        if self.api_key_env is not None and self.api_key_file is not None:
            raise ValueError("set api_key_env or api_key_file, not both")
        return self

    def api_key(self) -> str | None:
        """The credential: the ``api_key_env`` variable or the ``api_key_file``
        contents (stripped); None when the provider names neither.

        Raises:
            KeyError: ``api_key_env`` is set but the variable is missing, or
                ``api_key_file`` is set but the file cannot be read or is empty.
        """
        if self.api_key_file is not None:
            try:
                key = Path(self.api_key_file).read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as err:
                raise KeyError(self.api_key_file) from err
            if not key:
                raise KeyError(self.api_key_file)
            return key
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
    """One way to serve a model: a provider and the model name it knows
    (the older catalogue form; loaded as an unnamed :class:`Deployment`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: str
    upstream_model: str


class Timeouts(BaseModel):
    """A deployment's timeouts, seconds; an unset one takes its provider's value.

    Attributes:
        connect_seconds: TCP/TLS connect (default: the provider's
            ``connect_timeout_seconds``).
        first_byte_seconds: from sending the request to the answer's first
            body byte (headers included); a stream that sends nothing by
            then falls back to the next deployment (default: the provider's
            ``timeout_seconds``).
        idle_seconds: longest silence between two stream reads once the
            answer started; it also bounds the wait for the status line
            (default: the provider's ``timeout_seconds``).
        total_seconds: the whole attempt, body included (default: the
            provider's ``timeout_seconds`` for a non-streamed call; none for
            a stream, which ``idle_seconds`` bounds).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    connect_seconds: float | None = Field(default=None, gt=0)
    first_byte_seconds: float | None = Field(default=None, gt=0)
    idle_seconds: float | None = Field(default=None, gt=0)
    total_seconds: float | None = Field(default=None, gt=0)


class RetryPolicy(BaseModel):
    """When one deployment is tried again before falling back to the next.

    Attributes:
        max_attempts: attempts on one deployment, the first included (1 =
            no retry).
        retryable_statuses: provider statuses retried on the same
            deployment. Any 429 or 5xx not retried (or still failing) falls
            back to the next deployment; other statuses are the answer.
        retry_connect_errors: a refused or failed connection is retried on
            the same deployment (timeouts never are: they fall back).
        backoff_initial_seconds, backoff_max_seconds: the jittered
            exponential backoff between attempts (tenacity's
            ``wait_random_exponential``: uniform in ``[0, min(max, initial × 2^n)]``).
        max_retry_after_seconds: a 429's ``Retry-After`` is honoured up to
            this; a longer one falls back at once rather than wait.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_attempts: int = Field(default=2, ge=1, le=10)
    retryable_statuses: frozenset[int] = frozenset({429, 502, 503, 504})
    retry_connect_errors: bool = True
    backoff_initial_seconds: float = Field(default=0.05, ge=0)
    backoff_max_seconds: float = Field(default=1.0, ge=0)
    max_retry_after_seconds: float = Field(default=2.0, ge=0)


class BreakerPolicy(BaseModel):
    """The circuit breaker of every deployment (the edge's ``routing.breaker``).

    Closed → open when, within ``window_seconds``, at least ``min_calls``
    attempts were made and ``failure_rate`` of them failed (connect error,
    timeout, 5xx, a stream that ended before its first byte; a 429 counts as
    neither); open → half-open after ``open_seconds``; one probe call (one
    across all edges) then closes it or opens it again.

    Attributes:
        enabled: False = no breaker (every deployment is always tried).
        failure_rate: failed attempts / attempts that opens it (0 < r ≤ 1).
        min_calls: attempts in the window before the rate counts.
        window_seconds: the counting window (counts restart after it).
        open_seconds: how long an open breaker skips its deployment.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    failure_rate: float = Field(default=0.5, gt=0, le=1)
    min_calls: int = Field(default=10, ge=1)
    window_seconds: float = Field(default=10.0, gt=0)
    open_seconds: float = Field(default=5.0, gt=0)


class Deployment(BaseModel):
    """One place a model is served: a provider, the model name it knows,
    and how it is chosen, timed and retried.

    Attributes:
        name: unique within the model (usage events' ``deployment``, fault
            and breaker keys); None only for a deployment loaded from the
            older ``routes:`` form.
        priority: lower is tried first; deployments of equal priority are
            ordered by a weighted random draw (``weight``) per call.
        weight: relative share within its priority level (0 = only when the
            others of that level failed).
        regions: where the deployment processes data. A data-residency
            policy allowing regions R admits the deployment only when it
            has tags and all of them are in R (an untagged deployment is
            never admitted under a policy).
        timeouts: see :class:`Timeouts`.
        retry: its retry policy (default: the catalogue's ``retry``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = None
    provider: str
    upstream_model: str
    priority: int = 0
    weight: int = Field(default=1, ge=0)
    regions: frozenset[str] = frozenset()
    timeouts: Timeouts = Timeouts()
    retry: RetryPolicy | None = None


class Model(BaseModel):
    """A model clients may request.

    Attributes:
        deployments: where the model is served (see :class:`Deployment`);
            a later one is a fallback when an earlier one is unreachable,
            times out, or answers 429/5xx.
        routes: the older form (``{provider, upstream_model}`` tried in
            order), turned into ``deployments`` at load; give one or the other.
        prices: integer micro-USD per million tokens.
        max_output_tokens: the model's output cap, tokens (the admission
            upper bound when a request sets no ``max_tokens``).
        context_window: prompt + output limit, tokens, where known.
        owned_by: shown in ``GET /v1/models``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    deployments: tuple[Deployment, ...] = ()
    routes: tuple[Route, ...] = ()
    prices: Prices
    max_output_tokens: int = Field(default=4096, ge=1)
    context_window: int | None = Field(default=None, ge=1)
    owned_by: str = "tollway"

    @model_validator(mode="before")
    @classmethod
    def _routes_become_deployments(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("routes") and data.get("deployments"):
            raise ValueError("give deployments or routes, not both")
        if isinstance(data, dict) and data.get("routes"):
            routes = [r.model_dump() if isinstance(r, Route) else r for r in data["routes"]]
            data = {
                **data,
                "deployments": [
                    {"provider": r["provider"], "upstream_model": r["upstream_model"], "priority": i}
                    if isinstance(r, dict)
                    else r
                    for i, r in enumerate(routes)
                ],
            }
        return data

    @model_validator(mode="after")
    def _deployments_named_once(self) -> Model:
        if not self.deployments:
            raise ValueError("a model needs at least one deployment (or route)")
        names = [d.name for d in self.deployments if d.name is not None]
        if len(names) != len(set(names)):
            raise ValueError(f"deployment names repeat: {sorted(names)}")
        return self


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
    retry: RetryPolicy = RetryPolicy()
    breaker: BreakerPolicy = BreakerPolicy()

    @model_validator(mode="after")
    def _routes_name_known_providers(self) -> Catalogue:
        for name, model in self.models.items():
            for deployment in model.deployments:
                if deployment.provider not in self.providers:
                    raise ValueError(f"model {name!r} routes to unknown provider {deployment.provider!r}")
        return self

    def retry_of(self, deployment: Deployment) -> RetryPolicy:
        """The deployment's retry policy, or the catalogue's default."""
        return deployment.retry if deployment.retry is not None else self.retry


def parse_catalogue(data: bytes) -> Catalogue:
    """Validate a catalogue file's bytes (read once, so the version and the
    content are of the same bytes; the edge's live reload uses this).

    Raises:
        yaml.YAMLError: the bytes are not YAML (or not UTF-8: ``yaml.reader.ReaderError``).
        pydantic.ValidationError: the content does not match the schema.
    """
    return Catalogue.model_validate(yaml.safe_load(data))


def version_of(data: bytes) -> str:
    """The version of a catalogue file's bytes (see :func:`catalogue_version`)."""
    return hashlib.sha256(data).hexdigest()[:16]


def load_catalogue(path: str | Path) -> Catalogue:
    """Read and validate a catalogue YAML file.

    Raises:
        OSError: the file cannot be read.
        yaml.YAMLError: the file is not YAML.
        pydantic.ValidationError: the content does not match the schema.
    """
    return parse_catalogue(Path(path).read_bytes())


def catalogue_version(path: str | Path) -> str:
    """The version of a catalogue file as usage events carry it
    (``catalogue_version``, price provenance): the first 16 hex digits of
    the SHA-256 of its bytes, so the same file is the same version on every
    edge.

    Raises:
        OSError: the file cannot be read.
    """
    return version_of(Path(path).read_bytes())
