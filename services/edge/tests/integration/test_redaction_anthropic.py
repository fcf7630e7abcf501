"""Reversible redaction through the chat -> Anthropic translation, end to end:
the openai SDK → edge → real redactor processes → the echoing fake provider
spoken to as ``kind: anthropic``. The provider gets placeholders in its
Anthropic body; the client gets every original value back, in the plain
answer and in the translated stream. (Fixtures: ``test_redaction_edge``.)"""

from __future__ import annotations

from typing import Any

import pytest
from openai import AsyncOpenAI

from . import test_redaction_edge as shared
from .conftest import Edge

# the redaction tests' fixtures (two real redactors, the echoing provider, the edge behind them)
redactors = shared.redactors
echo_provider = shared.echo_provider
redaction_edge = shared.redaction_edge
NAME, EMAIL, PII, REVERSIBLE = shared.NAME, shared.EMAIL, shared.PII, shared.REVERSIBLE

pytestmark = pytest.mark.integration


def _client(edge: Edge, key: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=edge.base_url, api_key=key, max_retries=0, timeout=30)


async def test_reversible_redaction_through_the_anthropic_translation(
    redaction_edge: Edge, echo_provider: Any
) -> None:
    key = await shared._key(redaction_edge, REVERSIBLE)
    client = _client(redaction_edge, key)
    messages: Any = [{"role": "user", "content": PII}]
    raw = await client.chat.completions.with_raw_response.create(model="claude-test", messages=messages)
    (record,) = echo_provider.requests(raw.headers["x-request-id"])
    assert record["api"] == "messages"
    sent = record["body"]["messages"][0]["content"]
    assert NAME not in sent and EMAIL not in sent and "<PERSON_1>" in sent
    assert raw.parse().choices[0].message.content == " ".join(PII.split())  # every value back

    stream = await client.chat.completions.with_raw_response.create(
        model="claude-test", messages=messages, stream=True
    )
    text = "".join([c.choices[0].delta.content or "" async for c in stream.parse() if c.choices])
    (record,) = echo_provider.requests(stream.headers["x-request-id"])
    assert "<EMAIL_ADDRESS_1>" in record["body"]["messages"][0]["content"]
    assert text == " ".join(PII.split()) and "<" not in text
