"""The stored-response record (pure parts): its key, the ids the edge accepts, the holder."""

from __future__ import annotations

import pytest

from tollway_contracts.catalogue import Deployment
from tollway_edge.endpoints.response_state import Holder, state_key, valid_id

pytestmark = pytest.mark.unit


def test_key_has_the_tenant_as_hash_tag() -> None:
    assert state_key("t42", "resp_abc") == "tw:resp:v1:{t42}:resp_abc"


@pytest.mark.parametrize("rid", ["resp_0123abcdef", "resp-x", "a" * 200])
def test_valid_ids(rid: str) -> None:
    assert valid_id(rid)


@pytest.mark.parametrize("rid", ["", "../chat/completions", "resp/1", "resp?x=1", "résp", "a" * 201, "r\n"])
def test_ids_that_never_reach_a_provider_url(rid: str) -> None:
    assert not valid_id(rid)


def test_holder_round_trip_and_which_deployment_holds() -> None:
    holder = Holder("t1", "gpt-4o-mini", "east", "fake-model", "east-1")
    assert Holder.decode(holder.encode()) == holder
    assert Holder.decode(Holder("t1", "m", "p", "u").encode()).deployment is None
    assert holder.holds(Deployment(name="other-name", provider="east", upstream_model="fake-model"))
    assert not holder.holds(Deployment(name="east-1", provider="west", upstream_model="fake-model"))
    assert not holder.holds(Deployment(name="east-1", provider="east", upstream_model="fake-model-large"))
    with pytest.raises((ValueError, KeyError, TypeError)):
        Holder.decode(b'{"t": "t1"}')
