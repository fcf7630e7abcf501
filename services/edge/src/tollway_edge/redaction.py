"""Edge-side redaction: what the provider sees never carries personal data
unless the caller's policy allows it.

Pure functions plus one small async client, all callable from an aiohttp
handler (DESIGN "Request path" step 4, contract ``tollway_contracts.redaction``):

- :func:`extract_texts` — every free text of a chat completion request body
  that the provider would see, with stable JSON-pointer-like ids;
- :func:`apply_redaction` — the redactor's answer applied to a copy of the body;
- :func:`block_error` — in ``block`` mode, the 400 body naming entity types
  (never values);
- :func:`build_mapping`, :func:`restore_text`, :func:`restore_response`,
  :class:`StreamRestorer`, :class:`ChunkRestorer` — reversible mode: put the
  original values back into the answer, streaming or not;
- :class:`RedactorClient` — ``POST /v1/redact`` with a deadline; every
  failure is :class:`RedactionUnavailable`, which the edge turns into a 503
  and sends nothing to the provider (fail closed);
- :func:`summarize` — the ``RedactionSummary`` of the usage event;
- :func:`redact_request` — all of the above in the order the edge needs.

Ids: ``/messages/<i>/content`` (string content), ``/messages/<i>/content/<j>/text``
(text parts), ``/messages/<i>/refusal``,
``/messages/<i>/tool_calls/<k>/function/arguments`` and
``/messages/<i>/function_call/arguments`` (legacy). Arguments that parse as
JSON are split into their string leaves, each with the id
``<arguments id>#<JSON pointer of the leaf>`` (keys are not free text and the
arguments stay valid JSON); arguments that do not parse are one text.
``name`` fields, roles, ids, images and audio parts are not free text and are
not sent.
"""

from __future__ import annotations

import copy
import json
import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson
from pydantic import ValidationError

from tollway_contracts.errors import error_body
from tollway_contracts.events import RedactionSummary
from tollway_contracts.redaction import (
    REDACT_PATH,
    RedactionPolicy,
    RedactionText,
    RedactRequest,
    RedactResponse,
)

# --- (a) extraction ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TextRef:
    """One text of the request body.

    Attributes:
        id: JSON-pointer-like id (see module doc), stable for a given body.
        text: the text as the provider would see it.
    """

    id: str
    text: str


def _escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape_pointer(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _json_leaves(value: Any, pointer: str = "") -> Iterable[tuple[str, str]]:
    """(pointer, string) for every string leaf of a parsed JSON value."""
    if isinstance(value, str):
        yield pointer, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _json_leaves(v, f"{pointer}/{_escape_pointer(str(k))}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _json_leaves(v, f"{pointer}/{i}")


def _parse_arguments(arguments: str) -> Any | None:
    """Parsed JSON arguments when they are a JSON object or array, else None."""
    try:
        parsed = json.loads(arguments)
    except (ValueError, TypeError):
        return None
    return parsed if isinstance(parsed, dict | list) else None


def _argument_texts(base: str, arguments: Any) -> list[TextRef]:
    if not isinstance(arguments, str) or not arguments:
        return []
    parsed = _parse_arguments(arguments)
    if parsed is None:
        return [TextRef(base, arguments)]
    return [TextRef(f"{base}#{ptr}", s) for ptr, s in _json_leaves(parsed) if s]


def extract_texts(body: Mapping[str, Any]) -> list[TextRef]:
    """Every free text a provider would see in a chat completion request.

    Args:
        body: the parsed JSON body of ``POST /v1/chat/completions``.

    Returns:
        Texts in message order (empty strings skipped). Unknown shapes are
        ignored rather than guessed at; a message whose ``content`` is
        neither a string nor a list yields nothing.
    """
    out: list[TextRef] = []
    messages = body.get("messages")
    if not isinstance(messages, list):
        return out
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            continue
        base = f"/messages/{i}"
        content = msg.get("content")
        if isinstance(content, str):
            if content:
                out.append(TextRef(f"{base}/content", content))
        elif isinstance(content, list):
            for j, part in enumerate(content):
                if (
                    isinstance(part, dict)
                    and part.get("type") == "text"
                    and isinstance(part.get("text"), str)
                ):
                    if part["text"]:
                        out.append(TextRef(f"{base}/content/{j}/text", part["text"]))
        refusal = msg.get("refusal")
        if isinstance(refusal, str) and refusal:
            out.append(TextRef(f"{base}/refusal", refusal))
        tool_calls = msg.get("tool_calls")
        if isinstance(tool_calls, list):
            for k, call in enumerate(tool_calls):
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict):
                    out.extend(
                        _argument_texts(f"{base}/tool_calls/{k}/function/arguments", fn.get("arguments"))
                    )
        fcall = msg.get("function_call")
        if isinstance(fcall, dict):
            out.extend(_argument_texts(f"{base}/function_call/arguments", fcall.get("arguments")))
    return out


# --- (b) applying the answer ------------------------------------------------


class RedactionUnavailable(Exception):
    """The redactor could not give a complete answer in time: connection error,
    timeout past the deadline, non-200, malformed body, or a missing text.

    The edge answers 503 and sends nothing to the provider (fail closed).
    """


def _check_answer(texts: Sequence[TextRef], answer: RedactResponse) -> dict[str, str]:
    """Map id -> anonymised text; raises RedactionUnavailable if any id is missing."""
    by_id = {r.id: r.anonymized_text for r in answer.results}
    missing = [t.id for t in texts if t.id not in by_id]
    if missing:
        raise RedactionUnavailable(f"redactor answer lacks {len(missing)} text(s)")
    return by_id


def _set_path(body: Any, path: str, value: str) -> None:
    tokens = [_unescape_pointer(t) for t in path.split("/")[1:]]
    node = body
    for tok in tokens[:-1]:
        node = node[int(tok)] if isinstance(node, list) else node[tok]
    last = tokens[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def _get_path(body: Any, path: str) -> Any:
    node = body
    for tok in (_unescape_pointer(t) for t in path.split("/")[1:]):
        node = node[int(tok)] if isinstance(node, list) else node[tok]
    return node


def apply_redaction(
    body: Mapping[str, Any], texts: Sequence[TextRef], answer: RedactResponse
) -> dict[str, Any]:
    """A deep copy of ``body`` with every extracted text replaced by its
    anonymised version.

    Args:
        body: the original request body (not modified).
        texts: what :func:`extract_texts` returned for ``body``.
        answer: the redactor's answer for ``texts``.

    Returns:
        The body to forward. Arguments that were split into JSON leaves are
        re-serialised only if a leaf changed (else kept byte for byte).

    Raises:
        RedactionUnavailable: the answer lacks one of the texts (fail closed).
    """
    by_id = _check_answer(texts, answer)
    out = copy.deepcopy(dict(body))
    parsed_args: dict[str, Any] = {}  # arguments path -> parsed JSON being edited
    changed_args: set[str] = set()
    for ref in texts:
        new = by_id[ref.id]
        if new == ref.text:
            continue
        if "#" in ref.id:
            args_path, leaf = ref.id.split("#", 1)
            if args_path not in parsed_args:
                parsed_args[args_path] = _parse_arguments(_get_path(out, args_path))
            _set_path(parsed_args[args_path], leaf, new)
            changed_args.add(args_path)
        else:
            _set_path(out, ref.id, new)
    for args_path in sorted(changed_args):
        _set_path(out, args_path, json.dumps(parsed_args[args_path], ensure_ascii=False))
    return out


# --- (c) block mode ---------------------------------------------------------


def entity_counts(answer: RedactResponse) -> dict[str, int]:
    """Detections per entity type over all texts, e.g. ``{"PERSON": 2}``."""
    return dict(Counter(d.entity_type for r in answer.results for d in r.detections))


def block_error(answer: RedactResponse) -> dict[str, Any] | None:
    """The 400 body for ``block`` mode, or None when nothing was detected.

    The message names the entity types found, never a value; OpenAI error
    format, ``code = "pii_detected"``, ``type = "invalid_request_error"``.
    """
    counts = entity_counts(answer)
    if not counts:
        return None
    types = ", ".join(sorted(counts))
    return error_body(
        f"Request blocked by the redaction policy: it contains personal data ({types}).",
        type="invalid_request_error",
        code="pii_detected",
    )


# --- (d) reversible mode ----------------------------------------------------


def build_mapping(texts: Sequence[TextRef], answer: RedactResponse) -> dict[str, str]:
    """placeholder -> original value, from the detections and the original texts.

    The first occurrence of a placeholder wins (the redactor gives one
    placeholder to values that differ only in spacing or case). Keep this in
    memory for the call only; never log or persist it.

    Raises:
        RedactionUnavailable: the answer lacks one of the texts.
    """
    _check_answer(texts, answer)
    originals = {t.id: t.text for t in texts}
    mapping: dict[str, str] = {}
    for result in answer.results:
        text = originals.get(result.id)
        if text is None:
            continue
        for d in result.detections:
            if d.placeholder not in mapping and 0 <= d.start < d.end <= len(text):
                mapping[d.placeholder] = text[d.start : d.end]
    return mapping


def _pattern(mapping: Mapping[str, str]) -> re.Pattern[str] | None:
    if not mapping:
        return None
    return re.compile("|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True)))


def _json_escape(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)[1:-1]


def restore_text(text: str, mapping: Mapping[str, str], json_escape: bool = False) -> str:
    """``text`` with every known placeholder replaced by its original value.

    Args:
        json_escape: escape values for the inside of a JSON string literal
            (tool-call arguments).
    """
    pattern = _pattern(mapping)
    if pattern is None or "<" not in text:
        return text
    if json_escape:
        return pattern.sub(lambda m: _json_escape(mapping[m.group()]), text)
    return pattern.sub(lambda m: mapping[m.group()], text)


def restore_response(body: Mapping[str, Any], mapping: Mapping[str, str]) -> dict[str, Any]:
    """A copy of a non-streamed chat completion with placeholders restored in
    every choice's ``message.content`` (string or text parts), ``refusal``,
    ``tool_calls[].function.arguments`` and ``function_call.arguments``."""
    out = copy.deepcopy(dict(body))
    if not mapping:
        return out
    for choice in out.get("choices") or []:
        msg = choice.get("message") if isinstance(choice, dict) else None
        if isinstance(msg, dict):
            _restore_message(msg, mapping)
    return out


def _restore_message(msg: dict[str, Any], mapping: Mapping[str, str]) -> None:
    content = msg.get("content")
    if isinstance(content, str):
        msg["content"] = restore_text(content, mapping)
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                part["text"] = restore_text(part["text"], mapping)
    if isinstance(msg.get("refusal"), str):
        msg["refusal"] = restore_text(msg["refusal"], mapping)
    for call in msg.get("tool_calls") or []:
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
            fn["arguments"] = restore_text(fn["arguments"], mapping, json_escape=True)
    fcall = msg.get("function_call")
    if isinstance(fcall, dict) and isinstance(fcall.get("arguments"), str):
        fcall["arguments"] = restore_text(fcall["arguments"], mapping, json_escape=True)


class StreamRestorer:
    """Restores placeholders in one stream of text deltas (one field of one choice).

    A placeholder may be split across deltas. :meth:`feed` holds back only a
    tail that is a proper prefix of a known placeholder (so at most
    ``len(longest placeholder) - 1`` characters), and never text that cannot
    start a placeholder. Call :meth:`flush` at the end of the stream.

    Args:
        mapping: placeholder -> original value (from :func:`build_mapping`).
        json_escape: escape restored values for a JSON string (arguments).
    """

    def __init__(self, mapping: Mapping[str, str], json_escape: bool = False) -> None:
        self._mapping = dict(mapping)
        self._pattern = _pattern(self._mapping)
        self._prefixes = {k[:i] for k in self._mapping for i in range(1, len(k))}
        self._json_escape = json_escape
        self._held = ""

    @property
    def held(self) -> str:
        """Text held back, waiting for the rest of a possible placeholder."""
        return self._held

    def _value(self, placeholder: str) -> str:
        value = self._mapping[placeholder]
        return _json_escape(value) if self._json_escape else value

    def feed(self, delta: str) -> str:
        """The restored text that can be emitted now, given the next delta."""
        if self._pattern is None:
            return delta
        buf = self._held + delta
        self._held = ""
        out: list[str] = []
        i = 0
        while True:
            j = buf.find("<", i)
            if j == -1:
                out.append(buf[i:])
                break
            out.append(buf[i:j])
            m = self._pattern.match(buf, j)
            if m is not None:  # no placeholder is a prefix of another: they all end in ">"
                out.append(self._value(m.group()))
                i = m.end()
                continue
            if buf[j:] in self._prefixes:
                self._held = buf[j:]
                break
            out.append("<")
            i = j + 1
        return "".join(out)

    def flush(self) -> str:
        """Whatever is held back (an unfinished placeholder is emitted as is)."""
        held, self._held = self._held, ""
        return held


class ChunkRestorer:
    """Restores placeholders in parsed ``chat.completion.chunk`` objects of one stream.

    Keeps one :class:`StreamRestorer` per choice and field (``content``,
    ``refusal``, each tool call's ``arguments``). Held-back text is released
    in the chunk that carries the choice's ``finish_reason``; call
    :meth:`flush` at ``[DONE]`` for anything still held (returns a final
    chunk or None).
    """

    def __init__(self, mapping: Mapping[str, str]) -> None:
        self._mapping = dict(mapping)
        self._streams: dict[tuple, StreamRestorer] = {}
        self._template: dict[str, Any] | None = None

    def _stream(self, key: tuple, json_escape: bool) -> StreamRestorer:
        if key not in self._streams:
            self._streams[key] = StreamRestorer(self._mapping, json_escape=json_escape)
        return self._streams[key]

    def restore_chunk(self, chunk: dict[str, Any]) -> dict[str, Any]:
        """The chunk with restored deltas (mutated in place and returned)."""
        if not self._mapping:
            return chunk
        if self._template is None:
            self._template = {k: chunk[k] for k in ("id", "object", "created", "model") if k in chunk}
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            idx = choice.get("index", 0)
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                delta = {}
            for fieldname in ("content", "refusal"):
                if isinstance(delta.get(fieldname), str):
                    delta[fieldname] = self._stream((idx, fieldname), False).feed(delta[fieldname])
            for call in delta.get("tool_calls") or []:
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                    key = (idx, "tool_call", call.get("index", 0))
                    fn["arguments"] = self._stream(key, True).feed(fn["arguments"])
            if choice.get("finish_reason") is not None:
                self._release(idx, delta)
                choice["delta"] = delta
        return chunk

    def _release(self, idx: int, delta: dict[str, Any]) -> None:
        for key, stream in list(self._streams.items()):
            if key[0] != idx or not stream.held:
                continue
            rest = stream.flush()
            if key[1] in ("content", "refusal"):
                delta[key[1]] = (delta.get(key[1]) or "") + rest
            else:
                calls = delta.setdefault("tool_calls", [])
                calls.append({"index": key[2], "function": {"arguments": rest}})

    def flush(self) -> dict[str, Any] | None:
        """A final chunk carrying any held-back text, or None."""
        choices = []
        for idx in sorted({k[0] for k, s in self._streams.items() if s.held}):
            delta: dict[str, Any] = {}
            self._release(idx, delta)
            choices.append({"index": idx, "delta": delta, "finish_reason": None})
        if not choices:
            return None
        return {**(self._template or {"object": "chat.completion.chunk"}), "choices": choices}


# --- (e) client -------------------------------------------------------------


class RedactorClient:
    """Async client of the redactor's ``POST /v1/redact``.

    Args:
        base_url: e.g. ``http://127.0.0.1:8081``.
        session: a shared ``aiohttp.ClientSession`` (the edge's; not closed
            here). When None, the client creates its own; call :meth:`close`.
    """

    def __init__(self, base_url: str, session: aiohttp.ClientSession | None = None) -> None:
        self._url = base_url.rstrip("/") + REDACT_PATH
        self._session = session
        self._owns_session = session is None

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        """Analyse and anonymise ``texts`` (all texts of one call) under ``policy``.

        Args:
            deadline_ms: total time allowed for the call, ms (connect + answer).

        Returns:
            The redactor's answer, checked to contain every text id.

        Raises:
            RedactionUnavailable: connection error, no answer within the
                deadline, a non-200 status, a malformed body, or a missing text.
        """
        if self._session is None:
            self._session = aiohttp.ClientSession()
        payload = RedactRequest(policy=policy, texts=[RedactionText(id=t.id, text=t.text) for t in texts])
        timeout = aiohttp.ClientTimeout(total=max(deadline_ms, 1.0) / 1000.0)
        try:
            async with self._session.post(
                self._url,
                data=payload.__pydantic_serializer__.to_json(payload),
                headers={"content-type": "application/json"},
                timeout=timeout,
            ) as resp:
                raw = await resp.read()
                if resp.status != 200:
                    raise RedactionUnavailable(f"redactor answered {resp.status}")
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            raise RedactionUnavailable(f"redactor unreachable: {type(exc).__name__}") from exc
        try:
            answer = RedactResponse.model_validate(orjson.loads(raw))
        except (orjson.JSONDecodeError, ValidationError) as exc:
            raise RedactionUnavailable("malformed redactor answer") from exc
        _check_answer(list(payload.texts), answer)
        return answer

    async def prime(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> bool:
        """Warm the redactor's detection cache with texts the client will send
        back next turn (the assistant's answer as the client received it),
        so the next call analyses only the new user message.

        Meant for ``asyncio.create_task`` after a response completes; never
        raises.

        Returns:
            True when the redactor analysed (or already had) the texts.
        """
        if not texts or policy.mode == "off":
            return False
        try:
            await self.redact(policy, texts, deadline_ms)
        except RedactionUnavailable:
            return False
        return True

    async def close(self) -> None:
        """Close the session if this client created it."""
        if self._owns_session and self._session is not None:
            await self._session.close()
            self._session = None


# --- (f) summary ------------------------------------------------------------


def summarize(policy: RedactionPolicy, answer: RedactResponse | None, duration_ms: float) -> RedactionSummary:
    """The usage event's ``redaction`` object: counts by type, cache use, time (ms)."""
    if answer is None:
        return RedactionSummary(mode=policy.mode, duration_ms=round(max(duration_ms, 0.0), 3))
    total = len(answer.results)
    return RedactionSummary(
        mode=policy.mode,
        entities=entity_counts(answer),
        cache_hit=total > 0 and answer.cache.hits == total,
        cached_texts=answer.cache.hits,
        total_texts=total,
        duration_ms=round(max(duration_ms, 0.0), 3),
    )


# --- the whole step ---------------------------------------------------------


@dataclass(slots=True)
class RedactionOutcome:
    """What the edge does next.

    Attributes:
        body: the body to forward (a redacted copy in ``redact`` mode, else
            the original).
        blocked: in ``block`` mode with detections, the 400 error body to
            return instead of forwarding; else None.
        mapping: placeholder -> original for reversible ``redact`` (empty
            otherwise); use with :func:`restore_response` / :class:`ChunkRestorer`.
        summary: for the usage event; None when the policy is ``off``.
    """

    body: dict[str, Any]
    blocked: dict[str, Any] | None = None
    mapping: dict[str, str] = field(default_factory=dict)
    summary: RedactionSummary | None = None


async def redact_request(
    body: dict[str, Any], policy: RedactionPolicy | None, client: RedactorClient, deadline_ms: float
) -> RedactionOutcome:
    """Apply ``policy`` to a chat completion request body.

    ``off`` (or no policy): unchanged, no call. ``detect``: unchanged, counts.
    ``redact``: placeholders (+ mapping when reversible). ``block``: a 400
    body when anything is found, else unchanged.

    Raises:
        RedactionUnavailable: the redactor failed; answer 503 and forward nothing.
    """
    if policy is None or policy.mode == "off":
        return RedactionOutcome(body=body)
    started = time.perf_counter()
    texts = extract_texts(body)
    if not texts:
        return RedactionOutcome(body=body, summary=summarize(policy, None, 0.0))
    answer = await client.redact(policy, texts, deadline_ms)
    outcome = RedactionOutcome(body=body)
    if policy.mode == "redact":
        outcome.body = apply_redaction(body, texts, answer)
        if policy.reversible:
            outcome.mapping = build_mapping(texts, answer)
    elif policy.mode == "block":
        outcome.blocked = block_error(answer)
    outcome.summary = summarize(policy, answer, (time.perf_counter() - started) * 1000)
    return outcome
