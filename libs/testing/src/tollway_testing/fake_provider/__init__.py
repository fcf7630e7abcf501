"""A fake LLM provider speaking OpenAI's, Azure's and Anthropic's APIs: deterministic, fast, inspectable.

It is the floor of every benchmark and the upstream of every edge test, so it
does as little as possible per request. One module per API:

    chat          POST /v1/chat/completions (JSON, SSE, tool calls)
    completions   POST /v1/completions (legacy; JSON, SSE)
    embeddings    POST /v1/embeddings, POST /v1/moderations
    responses     POST /v1/responses (JSON, SSE), GET/DELETE /v1/responses/{id}
    messages      Anthropic POST /v1/messages (JSON, SSE, tool_use), /v1/messages/count_tokens
    app           routes (plain, /d/<deployment>/..., Azure /openai/deployments/<d>/...),
                  /v1/models, /healthz, /readyz, /_fake/requests, the command line
    faults        per-deployment faults, switchable at run time (/_fake/faults)
    core, wire    the call context and its one record; the JSON and SSE senders
    counting      the deterministic counting rules

Every control, URL form, fault kind and counting rule is documented in
libs/testing/README.md. ``python -m tollway_testing.fake_provider --port 9000``
runs it; :func:`create_app` builds it in process.
"""

from tollway_testing.fake_provider.app import configure_logging, create_app, main, parse_args
from tollway_testing.fake_provider.core import (
    CONFIG_KEY,
    DEFAULT_DEPLOYMENT,
    RECORDER,
    FakeProviderConfig,
    RequestLog,
    Usage,
)
from tollway_testing.fake_provider.counting import (
    ModelShape,
    completion_words,
    count_embedding_tokens,
    count_prompt_tokens,
    last_user_text,
    parse_model_shape,
    tool_arguments,
    tool_call_tokens,
)
from tollway_testing.fake_provider.faults import FAULTS, Fault, FaultTable
from tollway_testing.fake_provider.messages import count_anthropic_input_tokens

__all__ = [
    "FakeProviderConfig",
    "RequestLog",
    "RECORDER",
    "CONFIG_KEY",
    "FAULTS",
    "DEFAULT_DEPLOYMENT",
    "Fault",
    "FaultTable",
    "Usage",
    "count_prompt_tokens",
    "count_embedding_tokens",
    "count_anthropic_input_tokens",
    "completion_words",
    "tool_arguments",
    "tool_call_tokens",
    "ModelShape",
    "parse_model_shape",
    "last_user_text",
    "create_app",
    "configure_logging",
    "parse_args",
    "main",
]
