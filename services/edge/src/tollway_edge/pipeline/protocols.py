"""The endpoint contract of the pipeline: what an endpoint parses into
(:class:`ParsedRequest`), how a provider kind speaking another API serves it
(:class:`Translation`), and the endpoint itself (:class:`Endpoint`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from tollway_contracts.catalogue import Model, Provider
from tollway_edge.call import Call
from tollway_edge.endpoints.pins import Pins
from tollway_edge.redaction.fields import FieldTable
from tollway_edge.routing.forward import Target
from tollway_edge.streaming.readers import StreamReader
from tollway_edge.streaming.terminator import Terminator
from tollway_edge.usage import Tokens


class ParsedRequest(Protocol):
    """A request body parsed once by its endpoint.

    Attributes:
        body: the decoded JSON object (redaction reads and replaces it).
        model: the requested model; stream: a streamed answer was asked for;
        wants_usage: the client itself asked for the stream's usage chunk.
    """

    body: dict[str, Any]
    model: str
    stream: bool
    wants_usage: bool

    def prompt_bound(self) -> int:
        """Upper bound on the prompt's tokens (``admission.bounds``)."""

    def output_bound(self, model_cap: int) -> int:
        """Completion tokens the call may produce (``admission.bounds``)."""

    def replace_body(self, body: dict[str, Any]) -> None:
        """Forward ``body`` instead (redaction's copy)."""

    def encoded(self, upstream_model: str) -> bytes:
        """The body to send, naming ``upstream_model``."""


class Translation(Protocol):
    """An endpoint served by a provider kind that speaks another API.

    Attributes:
        path: the provider API path the translated body goes to.
    """

    path: str

    def outbound(
        self, parsed: ParsedRequest, entry: Model, headers: Mapping[str, str], provider: Provider
    ) -> Target:
        """The translated body (and headers) for ``provider`` (its ``api_version``
        may change what the translation may send).

        Raises:
            TranslationError: 400, the request cannot be expressed in the provider's API.
        """

    def answer(self, obj: dict[str, Any]) -> tuple[dict[str, Any], Tokens]:
        """The client's answer for a provider's 200 JSON, and its tokens.

        Raises:
            TranslationError: 502, the answer cannot be translated.
        """

    def reader(self, parsed: ParsedRequest) -> StreamReader:
        """The stream translator for this call."""


class Endpoint(Protocol):
    """One client-facing API (OpenAI's chat completions, embeddings...; Anthropic's Messages).

    Attributes:
        upstream_path: the API path, e.g. ``/chat/completions``; each
            route's provider kind (``routing.kinds``) turns it into a URL,
            and a model none of whose kinds serves it is a 400 ``unsupported``.
        redaction_fields: the field table of this endpoint's bodies
            (``redaction.fields``), which the redaction step walks; None
            when there is none yet: a key whose policy is ``redact`` or
            ``block`` gets a 400 ``redaction_unsupported`` (fail closed).
        pins: state a provider keeps that the endpoint's calls are pinned to
            (``endpoints.pins``: stored responses), else None.
        translations: by provider kind name, how a kind that does not serve
            ``upstream_path`` natively serves this endpoint anyway.
        anthropic_format: the client speaks Anthropic's API (its errors are
            Anthropic-format).
        client_headers: request headers passed through to a native provider
            (lower case; e.g. ``anthropic-version``).
        response_cache: the endpoint's answers may be served from the exact
            response cache (``tollway_edge.cache``; OpenAI chat completions).
    """

    upstream_path: str
    redaction_fields: FieldTable | None
    pins: Pins | None
    translations: Mapping[str, Translation]
    anthropic_format: bool
    client_headers: tuple[str, ...]
    response_cache: bool

    def parse(self, raw: bytes, call: Call) -> ParsedRequest:
        """Parse and check the body, recording ``call.model``/``call.stream``
        as soon as they are known (also when a later check fails).

        Raises:
            tollway_edge.errors.EdgeError: 400 naming the field at fault.
        """

    def usage_of(self, answer: Any) -> Tokens | None:
        """The tokens of a parsed non-streamed answer, or None."""

    def terminator(self, call: Call) -> Terminator:
        """The terminator of this endpoint's stream format."""

    def native_reader(self, parsed: Any) -> StreamReader | None:
        """The reader of a native provider's stream (``streaming.formats``), or
        None for OpenAI chunks (``readers.UsageReader``)."""
