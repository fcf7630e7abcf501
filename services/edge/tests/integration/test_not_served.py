"""OpenAI paths the gateway does not serve answer a clear OpenAI-format 404
(``endpoint_not_served``, naming the path), not ``unknown_url``."""

from __future__ import annotations

import openai
import pytest
from openai import AsyncOpenAI

from .conftest import Edge

pytestmark = pytest.mark.integration


async def test_sdk_calls_to_not_served_families_name_the_path(edge: Edge) -> None:
    key = await edge.new_key("a")
    client = AsyncOpenAI(base_url=edge.base_url, api_key=key, max_retries=0, timeout=10)
    calls = [
        ("/v1/images/generations", client.images.generate(prompt="a cat")),
        ("/v1/files", client.files.list()),
        ("/v1/batches", client.batches.list()),
        ("/v1/fine_tuning/jobs", client.fine_tuning.jobs.list()),
        ("/v1/vector_stores", client.vector_stores.list()),
    ]
    for path, pending in calls:
        with pytest.raises(openai.NotFoundError) as info:
            await pending
        err = info.value
        assert err.code == "endpoint_not_served", path
        assert err.body is not None and path in str(err.body["message"])  # type: ignore[index]
        assert "/v1/chat/completions" in str(err.body["message"])  # type: ignore[index]


async def test_unknown_paths_stay_unknown_url(edge: Edge, edge_http: object) -> None:
    import aiohttp

    assert isinstance(edge_http, aiohttp.ClientSession)
    async with edge_http.post(edge.base_url + "/no-such-thing", data=b"{}") as resp:
        assert resp.status == 404
        assert (await resp.json())["error"]["code"] == "unknown_url"
    async with edge_http.get(edge.base_url + "/audio/speech") as resp:  # any method, no key needed
        assert resp.status == 404
        assert (await resp.json())["error"]["code"] == "endpoint_not_served"
