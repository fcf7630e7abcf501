"""OpenAI paths the gateway does not serve: a clear OpenAI-format 404.

A client pointed at the gateway for, say, images gets an error naming the
path as not served by this gateway (``code: "endpoint_not_served"``) rather
than the generic ``unknown_url``, so the cause is obvious in the SDK's
exception. No authentication, no body read, no usage event: nothing reaches
a provider. The served endpoints are listed in ``services/edge/README.md``
("Endpoints").
"""

from __future__ import annotations

from aiohttp import web

from tollway_edge.errors import EdgeError

NOT_SERVED: tuple[str, ...] = (
    "assistants",
    "audio",
    "batches",
    "chatkit",
    "containers",
    "conversations",
    "evals",
    "files",
    "fine_tuning",
    "images",
    "organization",
    "realtime",
    "threads",
    "uploads",
    "vector_stores",
    "videos",
)
"""The first segment after ``/v1/`` of every OpenAI API family that is not served."""

SERVED: tuple[str, ...] = (
    "/v1/chat/completions",
    "/v1/completions",
    "/v1/embeddings",
    "/v1/moderations",
    "/v1/responses",
    "/v1/responses/{id} (GET, DELETE)",
    "/v1/responses/{id}/input_items",
    "/v1/models",
    "/v1/messages",
    "/v1/messages/count_tokens",
)
"""What the gateway serves (named in the error so the client sees the alternatives)."""


def not_served(path: str) -> EdgeError:
    """404 ``endpoint_not_served`` naming ``path`` (OpenAI's error format)."""
    return EdgeError(
        404,
        f"{path} is not served by this gateway. Served endpoints: {', '.join(SERVED)}.",
        code="endpoint_not_served",
    )


async def not_served_handler(request: web.Request) -> web.StreamResponse:
    """Any method on a not-served family: the 404 above.

    Raises:
        tollway_edge.errors.EdgeError: always (the middleware answers it).
    """
    raise not_served(request.path)


def add_not_served_routes(app: web.Application) -> None:
    """Route ``/v1/<family>`` and everything under it, any method, to :func:`not_served_handler`."""
    for family in NOT_SERVED:
        app.router.add_route("*", f"/v1/{family}", not_served_handler)
        app.router.add_route("*", f"/v1/{family}/{{tail:.*}}", not_served_handler)
