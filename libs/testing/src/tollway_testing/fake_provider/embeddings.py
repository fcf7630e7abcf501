"""OpenAI ``POST /v1/embeddings`` (and Azure's route) and ``POST /v1/moderations``.

Embeddings: prompt_tokens = Σ ceil(bytes(input_i) / 4), one token per id for
token-array inputs (:func:`count_embedding_tokens`); vectors are a
deterministic unit vector of the input text (``dimensions``, default from the
configuration); ``encoding_format: base64`` packs little-endian float32s.

Moderations: one result per input; ``flagged`` (category ``violence``) when
the text contains ``fake-flagged``. Like OpenAI's, the answer reports no
usage; the record still carries prompt_tokens by the embeddings rule, and
``billable`` is false (OpenAI does not charge for moderations).
"""

from __future__ import annotations

import base64
import struct
import uuid
from typing import Any

from aiohttp import web

from tollway_testing.fake_provider.core import Call, Usage
from tollway_testing.fake_provider.counting import count_embedding_tokens, embedding_vector
from tollway_testing.fake_provider.wire import send_json

MODERATION_CATEGORIES = (
    "harassment",
    "harassment/threatening",
    "hate",
    "hate/threatening",
    "illicit",
    "illicit/violent",
    "self-harm",
    "self-harm/instructions",
    "self-harm/intent",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
)


def _inputs(raw: Any) -> list[Any] | None:
    """A string, a token array, a list of strings or a list of token arrays → the list of inputs."""
    if isinstance(raw, str) or (isinstance(raw, list) and raw and all(isinstance(x, int) for x in raw)):
        return [raw]
    if isinstance(raw, list) and raw and all(isinstance(x, str | list) for x in raw):
        return raw
    return None


MAX_DIMENSIONS = 3072
"""The largest ``dimensions`` answered (OpenAI's largest embedding model); more is a 400."""


async def embeddings(handlers: Any, request: web.Request) -> web.StreamResponse:
    """Answer one embeddings request."""
    call = await Call.begin(handlers, request, "embeddings")
    body = call.body
    azure = request.match_info.get("azure_deployment")
    model = body.get("model") if isinstance(body, dict) else None
    if azure and not isinstance(model, str):
        model = azure
    await call.apply_fault(model if isinstance(model, str) else None)
    inputs = _inputs(body.get("input")) if isinstance(body, dict) else None
    if inputs is None:
        call.reject(400, "'input' is required", param="input")
    dims = body.get("dimensions") or call.config.embedding_dimensions
    if not isinstance(dims, int) or isinstance(dims, bool) or dims < 1:
        call.reject(400, "'dimensions' must be a positive integer", param="dimensions")
    if dims > MAX_DIMENSIONS:  # as OpenAI (text-embedding-3-large: 3072); and no vector the size of RAM
        call.reject(400, f"'dimensions' must be at most {MAX_DIMENSIONS}", param="dimensions")
    fmt = body.get("encoding_format", "float")
    if fmt not in ("float", "base64"):
        call.reject(400, "'encoding_format' must be 'float' or 'base64'", param="encoding_format")
    data = []
    for i, item in enumerate(inputs):
        text = item if isinstance(item, str) else " ".join(map(str, item))
        vec = embedding_vector(text, int(dims))
        emb: Any = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode() if fmt == "base64" else vec
        data.append({"object": "embedding", "index": i, "embedding": emb})
    tokens = count_embedding_tokens(inputs)
    ttft = call.header_number("x-fake-ttft-ms", call.config.ttft_ms) / 1000
    usage_object = {"prompt_tokens": tokens, "total_tokens": tokens}
    payload = {
        "object": "list",
        "data": data,
        "model": model or "fake-embedding",
        "usage": usage_object,
    }
    return await send_json(call, payload, Usage(tokens, 0), usage_object, None, ttft)


def _moderation_texts(raw: Any) -> list[str] | None:
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list) and raw and all(isinstance(x, str) for x in raw):
        return raw
    if isinstance(raw, list) and raw and all(isinstance(x, dict) for x in raw):
        # multi-modal parts: the text parts form one input; images count nothing
        return ["".join(p.get("text", "") for p in raw if p.get("type") == "text")]
    return None


async def moderations(handlers: Any, request: web.Request) -> web.StreamResponse:
    """Answer one moderations request."""
    call = await Call.begin(handlers, request, "moderations")
    body = call.body
    model = body.get("model") if isinstance(body, dict) else None
    await call.apply_fault(model if isinstance(model, str) else None)
    texts = _moderation_texts(body.get("input")) if isinstance(body, dict) else None
    if texts is None:
        call.reject(400, "'input' is required", param="input")
    results = []
    for text in texts:
        flagged = "fake-flagged" in text
        results.append(
            {
                "flagged": flagged,
                "categories": {c: flagged and c == "violence" for c in MODERATION_CATEGORIES},
                "category_scores": {
                    c: (0.99 if flagged and c == "violence" else 0.0001) for c in MODERATION_CATEGORIES
                },
                "category_applied_input_types": {c: ["text"] for c in MODERATION_CATEGORIES},
            }
        )
    payload = {
        "id": "modr-" + uuid.uuid4().hex,
        "model": model if isinstance(model, str) else "omni-moderation-latest",
        "results": results,
    }
    tokens = count_embedding_tokens(texts)
    ttft = call.header_number("x-fake-ttft-ms", call.config.ttft_ms) / 1000
    return await send_json(call, payload, Usage(tokens, 0), None, None, ttft, billable=False)
