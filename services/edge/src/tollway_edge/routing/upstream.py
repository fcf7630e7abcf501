"""Provider connections (adapter): one HTTP/1.1 client (``routing.http1``) per provider.

Each client keeps a large keep-alive pool (at least 1,024 connections, or the
catalogue's ``max_connections`` when larger, so 1,000 concurrent streams fit)
and the request headers are computed once at start, including the
credential read from the provider's ``api_key_env``, placed the way the
provider's kind wants it (``routing.kinds``: Bearer, ``api-key``, ``x-api-key``).
A provider with ``min_idle_connections`` gets that many idle connections
opened at once in the background and kept open (``routing.warm``), per
worker process.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import structlog
from yarl import URL

from tollway_contracts.catalogue import Catalogue, Deployment, Provider
from tollway_edge.routing.http1 import Timeouts
from tollway_edge.routing.http1_pool import Client
from tollway_edge.routing.kinds import ProviderKind, kind_of

log = structlog.get_logger("tollway_edge.upstream")

MIN_POOL = 1024
MAX_CONNECTING = 32
"""New provider connections being opened at once (per provider). A burst of
streams (1,000 in a second) otherwise fires hundreds of SYNs in the same
millisecond at a provider whose listen backlog may be 128: the overflow is
dropped and retried by the kernel after 1 s, 3 s, ... (seen as multi-second
time to first chunk). Loopback connects take ~0.1 ms, so 32 at a time still
opens thousands per second; reused keep-alive connections never wait."""


@dataclass(frozen=True, slots=True)
class AttemptTimeouts:
    """One deployment's timeouts as an attempt applies them.

    Attributes:
        deadline_seconds: the attempt's deadline up to its answer: the
            first-byte timeout of a stream (status line and first chunk),
            the total timeout of a non-streamed call (whole body); None = none.
        client: the request's :class:`~tollway_edge.routing.http1.Timeouts`:
            connect, idle between reads (streams), and a stream's total.
    """

    deadline_seconds: float | None
    client: Timeouts


def attempt_timeouts(provider: Provider, deployment: Deployment, stream: bool) -> AttemptTimeouts:
    """The :class:`AttemptTimeouts` of ``deployment`` (``Timeouts``; an unset
    value takes the provider's ``connect_timeout_seconds``/``timeout_seconds``)."""
    t = deployment.timeouts
    connect = t.connect_seconds or provider.connect_timeout_seconds
    if stream:
        return AttemptTimeouts(
            deadline_seconds=t.first_byte_seconds or provider.timeout_seconds,
            client=Timeouts(
                connect=connect, idle=t.idle_seconds or provider.timeout_seconds, total=t.total_seconds
            ),
        )
    return AttemptTimeouts(
        deadline_seconds=t.total_seconds or provider.timeout_seconds,
        client=Timeouts(connect=connect),
    )


@dataclass(slots=True)
class Upstream:
    """A provider ready to call.

    Attributes:
        name: the provider's catalogue name (``provider`` in usage events).
        base_url: the provider's base URL without a trailing slash.
        headers: precomputed request headers (content type, credential).
        timeout_seconds: whole-call timeout (non-stream) or time to first
            byte (stream), s.
        usable: False when its credential variable is missing (every call
            to it then counts as a connection failure and falls back).
        kind: its wire protocol (``routing.kinds``): which API paths it
            serves and their URLs.
    """

    name: str
    provider: Provider
    client: Client
    base_url: str
    headers: dict[str, str]
    timeout_seconds: float
    usable: bool
    kind: ProviderKind
    _urls: dict[tuple[str, str], URL] = field(default_factory=dict)
    _timeouts: dict[tuple[int, bool], tuple[Deployment, AttemptTimeouts]] = field(default_factory=dict)

    def timeouts_for(self, deployment: Deployment, stream: bool) -> AttemptTimeouts:
        """``deployment``'s :func:`attempt_timeouts` on this provider, built once."""
        key = (id(deployment), stream)
        hit = self._timeouts.get(key)
        if hit is not None and hit[0] is deployment:
            return hit[1]
        timeouts = attempt_timeouts(self.provider, deployment, stream)
        self._timeouts[key] = (deployment, timeouts)
        return timeouts

    def url_for(self, path: str, upstream_model: str = "") -> URL:
        """The URL of API ``path`` (e.g. ``/chat/completions``) for ``upstream_model``
        in this provider's kind (``{base_url}{path}`` for ``openai``; Azure's
        deployment URL), built once per path and model."""
        url = self._urls.get((path, upstream_model))
        if url is None:
            url = self.kind.url(self.base_url, self.provider, path, upstream_model)
            self._urls[(path, upstream_model)] = url
        return url


def _base(provider: Provider) -> str:
    return str(provider.base_url).rstrip("/")


async def open_upstreams(
    catalogue: Catalogue, reuse: Mapping[str, Upstream] | None = None
) -> dict[str, Upstream]:
    """Open one client per provider (call :func:`close_upstreams` at stop); a
    new or changed provider's warm connections start opening in the background.

    Args:
        reuse: upstreams already open (a catalogue reload): a provider whose
            configuration is unchanged keeps its upstream and its pool.
    """
    upstreams: dict[str, Upstream] = {}
    for name, provider in catalogue.providers.items():
        kept = None if reuse is None else reuse.get(name)
        if kept is not None and kept.provider == provider:
            upstreams[name] = kept
            continue
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        usable = True
        try:
            key = provider.api_key()
        except KeyError:
            log.error(
                "provider_credential_missing",
                provider=name,
                env=provider.api_key_env,
                file=provider.api_key_file,
            )
            key, usable = None, False
        kind = kind_of(provider)
        headers.update(kind.headers(provider, key))
        client = Client(
            limit=max(provider.max_connections, MIN_POOL),
            connecting=MAX_CONNECTING,
            provider=name,
            min_idle=provider.min_idle_connections,
            connect_timeout=provider.connect_timeout_seconds,
        )
        if usable:  # connections opened ahead in the background (``routing.warm``); none when 0
            client.warm(URL(_base(provider)))
        upstreams[name] = Upstream(
            name=name,
            provider=provider,
            client=client,
            base_url=_base(provider),
            headers=headers,
            timeout_seconds=provider.timeout_seconds,
            usable=usable,
            kind=kind,
        )
    return upstreams


async def close_upstreams(upstreams: dict[str, Upstream]) -> None:
    """Close every provider client."""
    for upstream in upstreams.values():
        await upstream.client.close()
