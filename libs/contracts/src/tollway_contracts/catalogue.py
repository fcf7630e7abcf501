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

Every model here is a frozen ``msgspec.Struct`` (the edge's workers never
import pydantic); the constructors check nothing, so a catalogue is built from
data with :func:`parse_catalogue` / :func:`load_catalogue` /
:func:`catalogue_from_dict` (types, bounds and the cross-field rules checked).

Validated at start with :func:`load_catalogue`; a bad file stops the service
with the validation error. The edge reloads the file when it changes (its
``catalogue_live``): a bad file then keeps the previous catalogue. Model names are the names clients send.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import msgspec
import yaml

ProviderKind = Literal["openai", "azure", "anthropic"]
MicroUsdPerMillion = Annotated[int, msgspec.Meta(ge=0, description="micro-USD per 1,000,000 tokens")]
_Positive = Annotated[float, msgspec.Meta(gt=0)]
_NonNegative = Annotated[float, msgspec.Meta(ge=0)]
_Url = Annotated[str, msgspec.Meta(min_length=1, extra_json_schema={"format": "uri"})]


class _Contract(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of the catalogue's structs: frozen, keyword-only, unknown fields refused."""


class Provider(_Contract, frozen=True, kw_only=True, forbid_unknown_fields=True):
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
        min_idle_connections: connections each edge worker process keeps
            open to this provider ahead of demand (TLS handshake included),
            idle when no call holds them, so that a burst of calls finds them
            open instead of paying hundreds of connects at once. Connections
            serving calls count toward it; one is re-opened in the background
            when a connection closes (75 s idle, the provider's keep-alive
            timeout, a call's connection not reusable), not when a call takes
            one (it comes back). Size it to the burst a worker must absorb
            (e.g. 500 for bursts of 1,000 new streams on a 2-worker edge). It
            costs the provider idle sockets: workers × edge pods × this value,
            re-opened every keep-alive period; keep 0 (the default: nothing
            opened ahead) for providers whose keep-alive timeout is short or
            whose connection count is limited. At most ``max_connections``.
        api_version: the API version the edge names: ``azure``'s
            ``api-version`` query parameter (default ``2024-10-21``),
            ``anthropic``'s ``anthropic-version`` header when the client sent
            none (default ``2023-06-01``); unused for ``openai``.
    """

    kind: ProviderKind = "openai"
    base_url: _Url
    api_key_env: str | None = None
    api_key_file: str | None = None
    timeout_seconds: _Positive = 600.0
    connect_timeout_seconds: _Positive = 10.0
    max_connections: Annotated[int, msgspec.Meta(ge=1)] = 2048
    min_idle_connections: Annotated[int, msgspec.Meta(ge=0)] = 0
    api_version: str | None = None

    def __post_init__(self) -> None:
        url = urlsplit(self.base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"base_url must be an http(s) URL with a host, not {self.base_url!r}")
        if self.api_key_env is not None and self.api_key_file is not None:
            raise ValueError("set api_key_env or api_key_file, not both")
        if self.min_idle_connections > self.max_connections:
            raise ValueError(
                f"min_idle_connections ({self.min_idle_connections}) must be at most"
                f" max_connections ({self.max_connections})"
            )

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


class Prices(_Contract, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Prices of a model in integer micro-USD per million tokens.

    ``input`` applies to uncached prompt tokens, ``cached_input`` to cached
    prompt tokens (defaults to ``input``), ``cache_write_input`` to prompt
    tokens written to the provider's prompt cache (Anthropic's
    ``cache_creation_input_tokens``, billed 1.25x input for a 5-minute cache;
    defaults to ``input``), ``output`` to completion tokens (reasoning tokens
    included, as OpenAI bills them).
    """

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


class Route(_Contract, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One way to serve a model: a provider and the model name it knows
    (the older catalogue form; loaded as an unnamed :class:`Deployment`)."""

    provider: str
    upstream_model: str


class Timeouts(_Contract, frozen=True, kw_only=True, forbid_unknown_fields=True):
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

    connect_seconds: _Positive | None = None
    first_byte_seconds: _Positive | None = None
    idle_seconds: _Positive | None = None
    total_seconds: _Positive | None = None


class RetryPolicy(_Contract, frozen=True, kw_only=True, forbid_unknown_fields=True):
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

    max_attempts: Annotated[int, msgspec.Meta(ge=1, le=10)] = 2
    retryable_statuses: frozenset[int] = frozenset({429, 502, 503, 504})
    retry_connect_errors: bool = True
    backoff_initial_seconds: _NonNegative = 0.05
    backoff_max_seconds: _NonNegative = 1.0
    max_retry_after_seconds: _NonNegative = 2.0


class BreakerPolicy(_Contract, frozen=True, kw_only=True, forbid_unknown_fields=True):
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

    enabled: bool = True
    failure_rate: Annotated[float, msgspec.Meta(gt=0, le=1)] = 0.5
    min_calls: Annotated[int, msgspec.Meta(ge=1)] = 10
    window_seconds: _Positive = 10.0
    open_seconds: _Positive = 5.0


class Deployment(_Contract, frozen=True, kw_only=True, forbid_unknown_fields=True):
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

    name: str | None = None
    provider: str
    upstream_model: str
    priority: int = 0
    weight: Annotated[int, msgspec.Meta(ge=0)] = 1
    regions: frozenset[str] = frozenset()
    timeouts: Timeouts = Timeouts()
    retry: RetryPolicy | None = None


class Model(_Contract, frozen=True, kw_only=True, forbid_unknown_fields=True):
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

    deployments: tuple[Deployment, ...] = ()
    routes: tuple[Route, ...] = ()
    prices: Prices
    max_output_tokens: Annotated[int, msgspec.Meta(ge=1)] = 4096
    context_window: Annotated[int, msgspec.Meta(ge=1)] | None = None
    owned_by: str = "tollway"

    def __post_init__(self) -> None:
        if self.routes and self.deployments:
            raise ValueError("give deployments or routes, not both")
        if self.routes:  # the older form: each route an unnamed deployment, in order
            deployments = tuple(
                Deployment(provider=r.provider, upstream_model=r.upstream_model, priority=i)
                for i, r in enumerate(self.routes)
            )
            msgspec.structs.force_setattr(self, "deployments", deployments)
        if not self.deployments:
            raise ValueError("a model needs at least one deployment (or route)")
        names = [d.name for d in self.deployments if d.name is not None]
        if len(names) != len(set(names)):
            raise ValueError(f"deployment names repeat: {sorted(names)}")


class Catalogue(_Contract, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The whole routing catalogue.

    Raises (from :func:`catalogue_from_dict`):
        msgspec.ValidationError (a ``ValueError``): unknown fields, negative
            prices, or a route naming a provider that is not defined.
    """

    version: Literal[1] = 1
    providers: dict[str, Provider]
    models: dict[str, Model]
    retry: RetryPolicy = RetryPolicy()
    breaker: BreakerPolicy = BreakerPolicy()

    def __post_init__(self) -> None:
        for name, model in self.models.items():
            for deployment in model.deployments:
                if deployment.provider not in self.providers:
                    raise ValueError(f"model {name!r} routes to unknown provider {deployment.provider!r}")

    def retry_of(self, deployment: Deployment) -> RetryPolicy:
        """The deployment's retry policy, or the catalogue's default."""
        return deployment.retry if deployment.retry is not None else self.retry


def catalogue_from_dict(data: Any) -> Catalogue:
    """Validate a catalogue given as JSON-shaped data (the YAML file, loaded).

    Raises:
        msgspec.ValidationError (a ``ValueError``): the content does not match
            the schema; the message names the place (``... - at `$.models.m```).
    """
    return msgspec.convert(data, Catalogue, strict=False)


def parse_catalogue(data: bytes) -> Catalogue:
    """Validate a catalogue file's bytes (read once, so the version and the
    content are of the same bytes; the edge's live reload uses this).

    Raises:
        yaml.YAMLError: the bytes are not YAML (or not UTF-8: ``yaml.reader.ReaderError``).
        msgspec.ValidationError (a ``ValueError``): the content does not
            match the schema.
    """
    return catalogue_from_dict(yaml.safe_load(data))


def version_of(data: bytes) -> str:
    """The version of a catalogue file's bytes (see :func:`catalogue_version`)."""
    return hashlib.sha256(data).hexdigest()[:16]


def load_catalogue(path: str | Path) -> Catalogue:
    """Read and validate a catalogue YAML file.

    Raises:
        OSError: the file cannot be read.
        yaml.YAMLError: the file is not YAML.
        msgspec.ValidationError (a ``ValueError``): the content does not
            match the schema.
    """
    return parse_catalogue(Path(path).read_bytes())


def catalogue_json_schema() -> dict[str, Any]:
    """The catalogue file's JSON Schema (``schemas/catalogue.v1.schema.json``)."""
    schema: dict[str, Any] = msgspec.json.schema(Catalogue)
    return schema


def catalogue_version(path: str | Path) -> str:
    """The version of a catalogue file as usage events carry it
    (``catalogue_version``, price provenance): the first 16 hex digits of
    the SHA-256 of its bytes, so the same file is the same version on every
    edge.

    Raises:
        OSError: the file cannot be read.
    """
    return version_of(Path(path).read_bytes())
