"""Where a call may go: its plan of deployments (:func:`plan_call`), what
each provider is sent (:func:`targets`), and the translation and stream
reader of the provider that answered (:func:`translation_for`,
:func:`stream_reader`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tollway_contracts.catalogue import Deployment, Model
from tollway_edge.errors import (
    model_not_in_allowed_regions,
    unsupported,
)
from tollway_edge.pipeline.protocols import Endpoint, ParsedRequest, Translation
from tollway_edge.routing.forward import Outbound, Target
from tollway_edge.routing.plan import plan
from tollway_edge.routing.upstream import Upstream
from tollway_edge.streaming.readers import StreamReader


def stream_reader(
    endpoint: Endpoint, translation: Translation | None, parsed: ParsedRequest
) -> StreamReader | None:
    """The stream's format: the translation's, Anthropic's events relayed as they
    are, or (None) OpenAI chunks relayed as they are."""
    if translation is not None:
        return translation.reader(parsed)
    return endpoint.native_reader(parsed)


def translation_for(
    upstreams: Mapping[str, Upstream], endpoint: Endpoint, provider: str | None
) -> Translation | None:
    """The translation the answering provider needs, or None (native)."""
    if provider is None:
        return None
    kind = upstreams[provider].kind
    return None if kind.serves(endpoint.upstream_path) else endpoint.translations.get(kind.name)


def build_targets(
    upstreams: Mapping[str, Upstream],
    endpoint: Endpoint,
    deployments: Sequence[Deployment],
    parsed: ParsedRequest,
    entry: Model,
    headers: Mapping[str, str],
) -> dict[str, Target]:
    """What each provider among ``deployments`` is sent: the body as is, or translated
    (after redaction; once per provider).

    Raises:
        TranslationError: 400, the body cannot be expressed in a route's API.
    """
    targets: dict[str, Target] = {}
    for deployment in deployments:
        upstream = upstreams[deployment.provider]
        if upstream.name in targets:
            continue
        kind = upstream.kind
        translation = None if kind.serves(endpoint.upstream_path) else endpoint.translations.get(kind.name)
        if translation is None:
            passed = {h: headers[h] for h in endpoint.client_headers if h in headers}
            outbound: Outbound = parsed
            targets[upstream.name] = Target(endpoint.upstream_path, outbound, passed)
        else:
            targets[upstream.name] = translation.outbound(parsed, entry, headers, upstream.provider)
    return targets


def plan_call(
    upstreams: Mapping[str, Upstream],
    endpoint: Endpoint,
    deployments: Sequence[Deployment],
    model: str,
    allowed_regions: frozenset[str] | None,
) -> list[Deployment]:
    """The call's plan (``routing.plan``): the deployments whose provider kind
    serves the endpoint (``routing.kinds``) natively or through one of its
    translations and that the key's residency policy admits, by priority,
    weighted within a level. Retries and fallback only ever walk this list,
    so they never leave the allowed regions.

    Raises:
        tollway_edge.errors.EdgeError: 400 ``unsupported`` when no deployment
            serves ``path``; 403 ``model_not_in_allowed_regions`` when some
            do but none is in the allowed regions.
    """
    path = endpoint.upstream_path

    def serves(d: Deployment) -> bool:
        kind = upstreams[d.provider].kind
        translation = endpoint.translations.get(kind.name)
        return kind.serves(path) or (translation is not None and kind.serves(translation.path))

    planned = plan(deployments, allowed_regions=allowed_regions, serves=serves)
    if not planned:
        if not any(serves(d) for d in deployments):
            kinds = ", ".join(sorted({upstreams[d.provider].kind.name for d in deployments}))
            raise unsupported(path, model, kinds)
        raise model_not_in_allowed_regions(model)
    return planned
