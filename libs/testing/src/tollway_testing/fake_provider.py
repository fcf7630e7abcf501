"""An OpenAI-compatible fake LLM provider: deterministic, fast, inspectable.

It is the floor of every benchmark and the upstream of every edge test, so it
does as little as possible per request and nothing per chunk beyond one small
byte concatenation.

Endpoints
    POST /v1/chat/completions   non-stream, and SSE stream (``stream: true``)
    POST /v1/embeddings
    GET  /v1/models
    GET  /healthz, /readyz
    GET  /_fake/requests[?request_id=...&limit=N]   what it received (newest last)
    DELETE /_fake/requests                          forget it

Deterministic token counts (documented so tests can compute expectations)
    prompt_tokens      = ceil(B / 4) + 3 * N, where B is the total UTF-8 byte
                         length of the text of all messages (string contents,
                         or the ``text`` of content parts) and N the number of
                         messages. See :func:`count_prompt_tokens`.
    completion_tokens  = the ``x-fake-completion-tokens`` header, else the
                         ``n<N>`` (or ``c<N>``) of a ``fake-stream`` model name
                         (below), else a model
                         name ending in ``tokens-<N>`` / ``tokens<N>`` (e.g.
                         ``fake-tokens-100``), else the configured default
                         (20); then capped by ``max_completion_tokens`` or
                         ``max_tokens``, in which case ``finish_reason`` is
                         ``length`` (else ``stop``).
    The completion text is that many words, one word per token; a stream sends
    one word per content chunk unless ``x-fake-chunks`` (or ``c<N>`` in the
    model name) asks for fewer chunks.
    embeddings         prompt_tokens = Σ ceil(bytes(input_i) / 4) (token-id
                         inputs count one token per id); vectors are a
                         deterministic function of the input text.

Stream shape from the MODEL NAME (gateway-neutral: every gateway forwards the model)
    A model name whose last ``/``-separated part starts with ``fake-stream``
    carries the stream shape, so the shape reaches the provider through any
    gateway that passes the model name on (gateways need not forward client
    headers, and Tollway's edge deliberately does not)::

        [<anything>/]fake-stream{-<field>}
        field  = c<N>    number of stream content chunks         (x-fake-chunks)
               | i<MS>   delay between content chunks, ms        (x-fake-chunk-interval-ms)
               | t<MS>   delay before the first byte, ms         (x-fake-ttft-ms)
               | n<N>    completion tokens; default N of c<N>    (x-fake-completion-tokens)
        N, MS  = decimal digits; each field at most once, in any order

    e.g. ``fake-stream-c200-i25-t400`` = 200 chunks (200 completion tokens),
    25 ms apart, the first byte after 400 ms; ``openai/fake-stream-c60-i50``
    and bare ``fake-stream`` also parse. A name starting with ``fake-stream``
    that does not follow the grammar is answered 400 (a typo must not silently
    stream the defaults). Non-stream calls honour the same fields (one delay of
    ttft + interval x (chunks - 1)). Precedence per value: header, then model
    name, then configuration. See :func:`parse_model_shape`.

Per-request controls (headers), overriding the model name and the configuration
    x-fake-ttft-ms              delay before the first byte of the answer
    x-fake-chunk-interval-ms    delay between stream content chunks
    x-fake-chunks               number of stream content chunks
    x-fake-completion-tokens    completion length in tokens
    x-fake-status               answer this HTTP status with an OpenAI-style
                                error body (429 adds ``retry-after: 1``)
    x-fake-disconnect-after-chunks  a stream drops the connection after K
                                content chunks (no finish, no usage, no [DONE])
    x-fake-echo: 1              answer with the last user message's text (its
                                whitespace-separated words, one per token and
                                per stream chunk); also ``FakeProviderConfig.echo``

Every response carries ``x-request-id``: the request's header if present, else
a fresh one. Each request is logged as one JSON line (structlog) and recorded
in a bounded in-memory list (the last ``max_records``, default 10,000).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import hashlib
import math
import re
import struct
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Any

import orjson
import structlog
from aiohttp import web

__all__ = [
    "FakeProviderConfig",
    "RequestLog",
    "RECORDER",
    "count_prompt_tokens",
    "count_embedding_tokens",
    "completion_words",
    "ModelShape",
    "parse_model_shape",
    "last_user_text",
    "create_app",
    "main",
]

DEFAULT_MODELS = ("fake-model", "fake-model-large", "fake-embedding")
_WORDS = (
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliett",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
)
_MODEL_TOKENS_RE = re.compile(r"tokens-?(\d+)$")
_SHAPE_PREFIX = "fake-stream"
_SHAPE_FIELD_RE = re.compile(r"([citn])(\d+)")
_SHAPE_FIELDS = {"c": "chunks", "i": "chunk_interval_ms", "t": "ttft_ms", "n": "completion_tokens"}


@dataclass(frozen=True, slots=True)
class ModelShape:
    """The stream shape encoded in a model name; None = not given (header or configuration applies).

    Attributes:
        chunks: stream content chunks (c<N>).
        chunk_interval_ms: delay between content chunks, ms (i<MS>).
        ttft_ms: delay before the first byte of the answer, ms (t<MS>).
        completion_tokens: completion length, tokens (n<N>; defaults to ``chunks``).
    """

    chunks: int | None = None
    chunk_interval_ms: int | None = None
    ttft_ms: int | None = None
    completion_tokens: int | None = None


def parse_model_shape(model: str) -> ModelShape | None:
    """Read the stream shape from a model name (grammar in the module docstring).

    ``"fake-stream-c200-i25-t400"`` → ``ModelShape(200, 25, 400, 200)``;
    ``"gpt-4o-mini"`` → None (not a shape name).

    Raises:
        ValueError: the name starts with ``fake-stream`` but does not follow the
            grammar (unknown or repeated field, missing digits, trailing text).
    """
    name = model.rsplit("/", 1)[-1]
    if not name.startswith(_SHAPE_PREFIX):
        return None
    rest = name[len(_SHAPE_PREFIX) :]
    if rest and not rest.startswith("-"):
        raise ValueError(f"model {model!r}: expected 'fake-stream' or 'fake-stream-<fields>'")
    values: dict[str, int] = {}
    for part in rest.split("-")[1:]:
        m = _SHAPE_FIELD_RE.fullmatch(part)
        if m is None:
            raise ValueError(
                f"model {model!r}: field {part!r} is not one of c<chunks>, i<interval ms>, t<ttft ms>, n<tokens>"
            )
        key = _SHAPE_FIELDS[m.group(1)]
        if key in values:
            raise ValueError(f"model {model!r}: field {m.group(1)!r} given twice")
        values[key] = int(m.group(2))
    if "completion_tokens" not in values and "chunks" in values:
        values["completion_tokens"] = values["chunks"]
    return ModelShape(**values)


@dataclass(slots=True)
class FakeProviderConfig:
    """Behaviour of one fake provider instance; headers override per request."""

    host: str = "127.0.0.1"
    port: int = 9000
    ttft_ms: float = 0.0
    chunk_interval_ms: float = 0.0
    completion_tokens: int = 20
    embedding_dimensions: int = 8
    models: tuple[str, ...] = DEFAULT_MODELS
    max_records: int = 10_000
    access_log: bool = True
    echo: bool = False


class RequestLog:
    """Bounded, thread-safe record of received requests (a deque append/iter).

    Each record: ``request_id, method, path, headers, body, stream, status,
    prompt_tokens, completion_tokens, finish_reason, received_at``.
    """

    def __init__(self, max_records: int = 10_000) -> None:
        self._records: collections.deque[dict[str, Any]] = collections.deque(maxlen=max_records)

    def append(self, record: dict[str, Any]) -> None:
        self._records.append(record)

    def clear(self) -> None:
        self._records.clear()

    def all(self, request_id: str | None = None) -> list[dict[str, Any]]:
        records = list(self._records)
        if request_id is not None:
            records = [r for r in records if r["request_id"] == request_id]
        return records

    def __len__(self) -> int:
        return len(self._records)


CONFIG_KEY = web.AppKey("fake_provider_config", FakeProviderConfig)
RECORDER = web.AppKey("fake_provider_requests", RequestLog)


# --- deterministic counting ---------------------------------------------------------


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def count_prompt_tokens(messages: list[dict[str, Any]]) -> int:
    """ceil(total UTF-8 bytes of all message texts / 4) + 3 per message."""
    total_bytes = sum(len(_content_text(m.get("content")).encode()) for m in messages if isinstance(m, dict))
    return math.ceil(total_bytes / 4) + 3 * len(messages)


def count_embedding_tokens(inputs: list[Any]) -> int:
    """Σ ceil(UTF-8 bytes / 4) per text input; one token per id for token-id inputs."""
    total = 0
    for item in inputs:
        if isinstance(item, str):
            total += math.ceil(len(item.encode()) / 4)
        elif isinstance(item, list):
            total += len(item)
    return total


def last_user_text(messages: list[Any]) -> str:
    """The text of the last ``user`` message (string content or joined text parts), or ""."""
    for m in reversed(messages):
        if isinstance(m, dict) and m.get("role") == "user":
            return _content_text(m.get("content"))
    return ""


def completion_words(n: int) -> list[str]:
    """The completion text as words, one per token."""
    return [_WORDS[i % len(_WORDS)] for i in range(n)]


def _embedding(text: str, dims: int) -> list[float]:
    out: list[float] = []
    counter = 0
    while len(out) < dims:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        for i in range(0, len(digest), 4):
            if len(out) == dims:
                break
            (v,) = struct.unpack_from("<I", digest, i)
            out.append(round(v / 0xFFFFFFFF * 2 - 1, 6))
        counter += 1
    norm = math.sqrt(sum(x * x for x in out)) or 1.0
    return [x / norm for x in out]


# --- helpers ----------------------------------------------------------------------------


class _Reject(Exception):
    """Ends a request early with a ready response (turned into it by the middleware)."""

    def __init__(self, response: web.Response) -> None:
        super().__init__(response.status)
        self.response = response


@web.middleware
async def _reject_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        return await handler(request)
    except _Reject as r:
        return r.response


def _header_number(request: web.Request, name: str, default: float) -> float:
    raw = request.headers.get(name)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError:
        raise _Reject(
            web.Response(
                body=_error_body(f"header {name} must be a number", "invalid_request_error"),
                status=400,
                content_type="application/json",
            )
        ) from None


def _or(value: float | None, default: Any) -> Any:
    return default if value is None else value


def _error_body(message: str, type_: str, code: str | None = None) -> bytes:
    return orjson.dumps({"error": {"message": message, "type": type_, "param": None, "code": code}})


_STATUS_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_exceeded",
}


def _json(payload: Any, status: int, request_id: str, headers: dict[str, str] | None = None) -> web.Response:
    h = {"x-request-id": request_id}
    if headers:
        h.update(headers)
    return web.Response(body=orjson.dumps(payload), status=status, content_type="application/json", headers=h)


class _Handlers:
    def __init__(self, config: FakeProviderConfig, recorder: RequestLog) -> None:
        self.config = config
        self.recorder = recorder
        self.log = structlog.get_logger("tollway.fake_provider")

    # One record and one log line per request, whatever the outcome.
    def _finish(
        self,
        request: web.Request,
        request_id: str,
        body: Any,
        status: int,
        started: float,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        stream: bool = False,
        finish_reason: str | None = None,
    ) -> None:
        self.recorder.append(
            {
                "request_id": request_id,
                "method": request.method,
                "path": request.path,
                "headers": {str(k): v for k, v in request.headers.items()},
                "body": body,
                "stream": stream,
                "status": status,
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "finish_reason": finish_reason,
                "received_at": started,
            }
        )
        if self.config.access_log:
            self.log.info(
                "request",
                request_id=request_id,
                path=request.path,
                status=status,
                stream=stream,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                duration_ms=round((time.time() - started) * 1000, 3),
            )

    async def _read_json(self, request: web.Request, request_id: str, started: float) -> Any:
        try:
            return orjson.loads(await request.read())
        except orjson.JSONDecodeError:
            self._finish(request, request_id, None, 400, started)
            raise _Reject(
                web.Response(
                    body=_error_body("request body is not valid JSON", "invalid_request_error"),
                    status=400,
                    content_type="application/json",
                    headers={"x-request-id": request_id},
                )
            ) from None

    def _forced_status(
        self, request: web.Request, request_id: str, body: Any, started: float
    ) -> web.Response | None:
        if "x-fake-status" not in request.headers:
            return None
        status = int(_header_number(request, "x-fake-status", 200))
        if not 400 <= status <= 599:
            return None
        self._finish(request, request_id, body, status, started)
        headers = {"retry-after": "1"} if status == 429 else None
        return web.Response(
            body=_error_body(
                f"fake provider: forced status {status}", _STATUS_ERROR_TYPES.get(status, "server_error")
            ),
            status=status,
            content_type="application/json",
            headers={"x-request-id": request_id, **(headers or {})},
        )

    async def chat_completions(self, request: web.Request) -> web.StreamResponse:
        started = time.time()
        request_id = request.headers.get("x-request-id") or str(uuid.uuid4())
        body = await self._read_json(request, request_id, started)
        forced = self._forced_status(request, request_id, body, started)
        if forced is not None:
            return forced
        messages = body.get("messages") if isinstance(body, dict) else None
        if not isinstance(messages, list) or not messages or not isinstance(body.get("model"), str):
            self._finish(request, request_id, body, 400, started)
            return _json(
                {
                    "error": {
                        "message": "'model' and a non-empty 'messages' are required",
                        "type": "invalid_request_error",
                        "param": "messages",
                        "code": None,
                    }
                },
                400,
                request_id,
            )
        model: str = body["model"]
        cfg = self.config
        prompt_tokens = count_prompt_tokens(messages)
        try:
            shape = parse_model_shape(model) or ModelShape()
        except ValueError as exc:
            self._finish(request, request_id, body, 400, started)
            return _json(
                {
                    "error": {
                        "message": str(exc),
                        "type": "invalid_request_error",
                        "param": "model",
                        "code": "model_not_found",
                    }
                },
                400,
                request_id,
            )
        n = cfg.completion_tokens
        m = _MODEL_TOKENS_RE.search(model)
        if m:
            n = int(m.group(1))
        if shape.completion_tokens is not None:
            n = shape.completion_tokens
        n = int(_header_number(request, "x-fake-completion-tokens", n))
        echo_words: list[str] | None = None
        if cfg.echo or request.headers.get("x-fake-echo") == "1":
            echo_words = last_user_text(messages).split()
            n = len(echo_words)
        limit = body.get("max_completion_tokens")
        if limit is None:
            limit = body.get("max_tokens")
        finish_reason = "stop"
        if isinstance(limit, int) and limit < n:
            n, finish_reason = max(limit, 0), "length"
        ttft = _header_number(request, "x-fake-ttft-ms", _or(shape.ttft_ms, cfg.ttft_ms)) / 1000
        interval = (
            _header_number(
                request, "x-fake-chunk-interval-ms", _or(shape.chunk_interval_ms, cfg.chunk_interval_ms)
            )
            / 1000
        )
        default_chunks = _or(shape.chunks, None)
        words = completion_words(n) if echo_words is None else echo_words[:n]
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": n,
            "total_tokens": prompt_tokens + n,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }
        completion_id = "chatcmpl-" + uuid.uuid4().hex
        created = int(started)

        if not body.get("stream"):
            asked = _header_number(request, "x-fake-chunks", _or(default_chunks, len(words) or 1))
            n_chunks = max(1, min(len(words), int(asked)))
            delay = ttft + interval * (n_chunks - 1)
            if delay > 0:
                await asyncio.sleep(delay)
            self._finish(request, request_id, body, 200, started, prompt_tokens, n, False, finish_reason)
            return _json(
                {
                    "id": completion_id,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "system_fingerprint": "fp_tollway_fake",
                    "service_tier": "default",
                    "choices": [
                        {
                            "index": 0,
                            "message": {
                                "role": "assistant",
                                "content": " ".join(words),
                                "refusal": None,
                                "annotations": [],
                            },
                            "logprobs": None,
                            "finish_reason": finish_reason,
                        }
                    ],
                    "usage": usage,
                },
                200,
                request_id,
            )

        stream_options = body.get("stream_options") or {}
        include_usage = bool(isinstance(stream_options, dict) and stream_options.get("include_usage"))
        n_chunks = int(_header_number(request, "x-fake-chunks", _or(default_chunks, len(words))))
        n_chunks = max(0, min(n_chunks, len(words))) if words else 0
        if words and n_chunks == 0:
            n_chunks = 1
        disconnect_after = request.headers.get("x-fake-disconnect-after-chunks")

        # Every chunk shares this prefix and suffix; only the delta varies.
        prefix = (
            b'data: {"id":'
            + orjson.dumps(completion_id)
            + b',"object":"chat.completion.chunk","created":'
            + str(created).encode()
            + b',"model":'
            + orjson.dumps(model)
            + b',"system_fingerprint":"fp_tollway_fake","choices":[{"index":0,"delta":'
        )
        usage_null = b',"usage":null' if include_usage else b""

        def chunk(delta: bytes, finish: bytes = b"null") -> bytes:
            return (
                prefix + delta + b',"logprobs":null,"finish_reason":' + finish + b"}]" + usage_null + b"}\n\n"
            )

        resp = web.StreamResponse(
            status=200,
            headers={
                "content-type": "text/event-stream; charset=utf-8",
                "cache-control": "no-cache",
                "x-request-id": request_id,
            },
        )
        if ttft > 0:
            await asyncio.sleep(ttft)
        await resp.prepare(request)
        pieces: list[bytes] = [chunk(b'{"role":"assistant","content":"","refusal":null}')]
        # Split the words into n_chunks nearly equal groups, in order.
        groups: list[str] = []
        if n_chunks:
            q, r = divmod(len(words), n_chunks)
            i = 0
            for c in range(n_chunks):
                size = q + (1 if c < r else 0)
                text = " ".join(words[i : i + size])
                groups.append(text if i == 0 else " " + text)
                i += size
        # The record is written before the last bytes go out, so a test that has
        # read the whole stream always finds it.
        sent_chunks = 0
        recorded = False
        try:
            for idx, text in enumerate(groups):
                if disconnect_after is not None and idx >= int(disconnect_after):
                    self._finish(
                        request, request_id, body, 200, started, prompt_tokens, idx, True, "disconnect"
                    )
                    await resp.write(b"".join(pieces))
                    # Drop the connection without the terminating chunk: the client sees a cut stream.
                    if request.transport is not None:
                        request.transport.abort()
                    raise asyncio.CancelledError
                pieces.append(chunk(b'{"content":' + orjson.dumps(text) + b"}"))
                if interval > 0:
                    await resp.write(b"".join(pieces))
                    sent_chunks = idx + 1
                    pieces.clear()
                    await asyncio.sleep(interval)
            pieces.append(chunk(b"{}", b'"' + finish_reason.encode() + b'"'))
            if include_usage:
                pieces.append(
                    b'data: {"id":'
                    + orjson.dumps(completion_id)
                    + b',"object":"chat.completion.chunk","created":'
                    + str(created).encode()
                    + b',"model":'
                    + orjson.dumps(model)
                    + b',"system_fingerprint":"fp_tollway_fake","choices":[],"usage":'
                    + orjson.dumps(usage)
                    + b"}\n\n"
                )
            pieces.append(b"data: [DONE]\n\n")
            self._finish(request, request_id, body, 200, started, prompt_tokens, n, True, finish_reason)
            recorded = True
            await resp.write(b"".join(pieces))
            await resp.write_eof()
        except ConnectionResetError:
            if recorded:
                return resp
            # The client went away mid-stream (a cancelled call, a load generator
            # stopping): an outcome to record, not an error to log with a traceback.
            self._finish(
                request,
                request_id,
                body,
                499,
                started,
                prompt_tokens,
                sent_chunks,
                True,
                "client_disconnected",
            )
        return resp

    async def embeddings(self, request: web.Request) -> web.Response:
        started = time.time()
        request_id = request.headers.get("x-request-id") or str(uuid.uuid4())
        body = await self._read_json(request, request_id, started)
        forced = self._forced_status(request, request_id, body, started)
        if forced is not None:
            return forced
        raw = body.get("input") if isinstance(body, dict) else None
        if isinstance(raw, str) or (isinstance(raw, list) and raw and all(isinstance(x, int) for x in raw)):
            inputs: list[Any] = [raw]
        elif isinstance(raw, list) and raw:
            inputs = raw
        else:
            self._finish(request, request_id, body, 400, started)
            return _json(
                {
                    "error": {
                        "message": "'input' is required",
                        "type": "invalid_request_error",
                        "param": "input",
                        "code": None,
                    }
                },
                400,
                request_id,
            )
        dims = body.get("dimensions") or self.config.embedding_dimensions
        b64 = body.get("encoding_format") == "base64"
        data = []
        for i, item in enumerate(inputs):
            text = item if isinstance(item, str) else " ".join(map(str, item))
            vec = _embedding(text, int(dims))
            emb: Any = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode() if b64 else vec
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = count_embedding_tokens(inputs)
        ttft = _header_number(request, "x-fake-ttft-ms", self.config.ttft_ms) / 1000
        if ttft > 0:
            await asyncio.sleep(ttft)
        self._finish(request, request_id, body, 200, started, tokens, 0)
        return _json(
            {
                "object": "list",
                "data": data,
                "model": body.get("model", "fake-embedding"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
            200,
            request_id,
        )

    async def models(self, request: web.Request) -> web.Response:
        request_id = request.headers.get("x-request-id") or str(uuid.uuid4())
        return _json(
            {
                "object": "list",
                "data": [
                    {"id": m, "object": "model", "created": 1700000000, "owned_by": "tollway-fake"}
                    for m in self.config.models
                ],
            },
            200,
            request_id,
        )

    async def health(self, request: web.Request) -> web.Response:
        return web.Response(body=b'{"status":"ok"}', content_type="application/json")

    async def list_requests(self, request: web.Request) -> web.Response:
        records = self.recorder.all(request.query.get("request_id"))
        if "limit" in request.query:
            records = records[-int(request.query["limit"]) :]
        return web.Response(body=orjson.dumps(records), content_type="application/json")

    async def clear_requests(self, request: web.Request) -> web.Response:
        self.recorder.clear()
        return web.Response(status=204)


def create_app(config: FakeProviderConfig | None = None) -> web.Application:
    """The composition root: an aiohttp app; ``app[RECORDER]`` holds the received requests."""
    config = config or FakeProviderConfig()
    recorder = RequestLog(config.max_records)
    app = web.Application(client_max_size=64 * 1024 * 1024, middlewares=[_reject_middleware])
    app[CONFIG_KEY] = config
    app[RECORDER] = recorder
    h = _Handlers(config, recorder)
    app.router.add_post("/v1/chat/completions", h.chat_completions)
    app.router.add_post("/v1/embeddings", h.embeddings)
    app.router.add_get("/v1/models", h.models)
    app.router.add_get("/healthz", h.health)
    app.router.add_get("/readyz", h.health)
    app.router.add_get("/_fake/requests", h.list_requests)
    app.router.add_delete("/_fake/requests", h.clear_requests)
    return app


def configure_logging() -> None:
    """JSON lines to stdout (pretty on a TTY), cheap enough for the benchmark floor."""
    if sys.stdout.isatty():
        renderer: Any = structlog.dev.ConsoleRenderer()
        factory: Any = structlog.PrintLoggerFactory()
    else:
        renderer = structlog.processors.JSONRenderer(serializer=orjson.dumps)
        factory = structlog.BytesLoggerFactory()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        logger_factory=factory,
        cache_logger_on_first_use=True,
    )


def parse_args(argv: list[str] | None = None) -> FakeProviderConfig:
    p = argparse.ArgumentParser(
        prog="python -m tollway_testing.fake_provider", description=__doc__.split("\n")[0]
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=9000)
    p.add_argument("--ttft-ms", type=float, default=0.0, help="delay before the first byte (default 0)")
    p.add_argument(
        "--chunk-interval-ms", type=float, default=0.0, help="delay between stream chunks (default 0)"
    )
    p.add_argument("--completion-tokens", type=int, default=20, help="default completion length (default 20)")
    p.add_argument("--max-records", type=int, default=10_000, help="requests kept in memory (default 10000)")
    p.add_argument("--no-access-log", action="store_true", help="no log line per request (benchmarks)")
    a = p.parse_args(argv)
    return FakeProviderConfig(
        host=a.host,
        port=a.port,
        ttft_ms=a.ttft_ms,
        chunk_interval_ms=a.chunk_interval_ms,
        completion_tokens=a.completion_tokens,
        max_records=a.max_records,
        access_log=not a.no_access_log,
    )


def main(argv: list[str] | None = None) -> None:
    config = parse_args(argv)
    configure_logging()
    try:
        import uvloop

        loop = uvloop.new_event_loop()
    except ImportError:  # pragma: no cover - uvloop is a dependency, but stay runnable without it
        loop = asyncio.new_event_loop()
    structlog.get_logger("tollway.fake_provider").info("starting", host=config.host, port=config.port)
    web.run_app(
        create_app(config), host=config.host, port=config.port, access_log=None, print=None, loop=loop
    )


if __name__ == "__main__":
    main()
