"""``GET /v1/models``: the catalogue models the key may use, OpenAI's list shape."""

from __future__ import annotations

import orjson
from aiohttp import web

from tollway_edge.auth import authenticate
from tollway_edge.state import CALL_KEY, STATE


async def list_models(request: web.Request) -> web.Response:
    """The key's models (401 without a valid key; no usage event)."""
    state = request.app[STATE]
    call = request[CALL_KEY]
    principal = await authenticate(state.snapshot, state.sync, state.pepper, request.headers)
    call.principal = principal
    data = [
        {"id": name, "object": "model", "created": 0, "owned_by": model.owned_by}
        for name, model in state.catalogue.models.items()
        if principal.may_use(name)
    ]
    return web.Response(body=orjson.dumps({"object": "list", "data": data}), content_type="application/json")
