"""A non-streamed answer (:func:`answer_json`) and a provider's error body
in the client's format (:func:`provider_error_body`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from aiohttp import web

from tollway_contracts.catalogue import Deployment, Prices
from tollway_edge.cache import (
    CacheUse,
)
from tollway_edge.call import Call
from tollway_edge.errors import (
    anthropic_error_type,
    from_translation,
    upstream_error,
)
from tollway_edge.pipeline.cached import cache_entry
from tollway_edge.pipeline.protocols import Endpoint, Translation
from tollway_edge.redaction.answers import answers_on, scan_plain
from tollway_edge.state import EdgeState
from tollway_edge.translate import TranslationError
from tollway_edge.usage import Tokens, estimated_answer

JSON = "application/json"


async def answer_json(
    state: EdgeState,
    call: Call,
    endpoint: Endpoint,
    translation: Translation | None,
    status: int,
    raw: bytes,
    content_type: str,
    prices: Prices,
    use: CacheUse | None = None,
    deployments: Sequence[Deployment] = (),
) -> web.Response:
    """A non-streamed answer: parsed once for its usage (and restoration), translated
    into the client's API when the provider speaks another. With ``use`` (the call
    may store its answer), a 200 with usage becomes ``use.pending``: the answer
    as the provider gave it, before restoration (``tollway_edge.cache``).

    Under an answer policy (``answers: redact|block``) the answer is scanned
    before restoration (``redaction.answers.scan_plain``).

    Raises:
        tollway_edge.errors.EdgeError: 502 when a translated provider's answer cannot
            be translated; 502 ``answer_blocked`` or the redactor's failure under an
            answer policy (the ``failed`` event is emitted, billed).
    """
    if status == 200:
        obj = None
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
        if translation is not None:
            try:
                if type(obj) is not dict:
                    raise TranslationError(
                        "the provider's answer is not a JSON object",
                        status=502,
                        code="invalid_provider_response",
                    )
                obj, translated_tokens = translation.answer(obj)
            except TranslationError as err:
                call.fail(err.status, err.code)
                raise from_translation(err) from None
            raw = orjson.dumps(obj)
            tokens: Tokens | None = translated_tokens
        else:
            tokens = endpoint.usage_of(obj) if type(obj) is dict else None
        if tokens is None and type(obj) is dict and call.recovery is not None:  # a 200 without usage
            tokens = estimated_answer(obj, call.recovery[0])
            call.usage_estimated = tokens is not None
        if call.span is not None and type(obj) is dict:
            _trace_finish_reasons(call, obj)
        if use is not None and use.directives.store and tokens is not None and type(obj) is dict:
            if not call.usage_estimated:  # an answer without usage is not kept
                use.pending = cache_entry(call, obj, tokens, deployments).encode()  # before restoring
        if type(obj) is dict and answers_on(call.redaction_policy) and state.redaction is not None:
            cost = None if tokens is None else tokens.cost(prices)
            raw = await scan_plain(state.redaction, call, obj, tokens, cost)  # before restoration
        if type(obj) is dict and call.redaction_policy is not None and state.redaction is not None:
            raw = state.redaction.restore_plain(call, obj, raw)  # reversible: values back; prime the cache
        call.completed(200, tokens, None if tokens is None else tokens.cost(prices))
        return web.Response(body=raw, status=200, content_type=JSON)
    if status < 400:
        call.completed(status)
        return web.Response(body=raw, status=status, content_type=content_type or JSON)
    out, code = provider_error_body(status, raw, endpoint.anthropic_format, translation is not None)
    call.fail(status, code)
    return web.Response(body=out, status=status, content_type=JSON)


def _trace_finish_reasons(call: Call, answer: dict[str, Any]) -> None:
    """``gen_ai.response.finish_reasons`` on the server span: each choice's
    ``finish_reason`` of an OpenAI-format answer (streams: not read)."""
    choices = answer.get("choices")
    if type(choices) is not list:
        return
    reasons = [str(c["finish_reason"]) for c in choices if type(c) is dict and c.get("finish_reason")]
    if reasons and call.span is not None:
        call.span.set_attribute("gen_ai.response.finish_reasons", reasons)


def provider_error_body(status: int, raw: bytes, anthropic: bool, translated: bool) -> tuple[bytes, str]:
    """The provider's error body and its code, in the client's format.

    Native: the body as is when it is an error object (OpenAI's
    ``{"error": {...}}``; Anthropic's ``{"type": "error", "error": {...}}``).
    Translated: its ``message`` and ``type`` re-rendered in the client's format.
    Anything else: the edge's own ``upstream_error``.
    """
    err: Any = None
    try:
        obj = orjson.loads(raw)
        err = obj.get("error") if type(obj) is dict else None
    except orjson.JSONDecodeError:
        pass
    if type(err) is not dict or "message" not in err:
        fallback = upstream_error(status)
        return (fallback.anthropic_body() if anthropic else fallback.body()), "upstream_error"
    code = str(err.get("code") or err.get("type") or "upstream_error")
    if not translated:
        return raw, code
    message = str(err.get("message"))
    if anthropic:
        body = {"type": "error", "error": {"type": anthropic_error_type(status), "message": message}}
    else:
        kind = err.get("type") if type(err.get("type")) is str else "api_error"
        body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return orjson.dumps(body), code
