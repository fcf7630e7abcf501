"""The msgspec contracts the edge uses at run time: parsing checks what pydantic
checked, and they still serve as fields of the admin API's pydantic models."""

from __future__ import annotations

import msgspec
import pydantic
import pytest

from tollway_contracts.limits import Limit, parse_limit, parse_limits
from tollway_contracts.pydantic_fields import LimitField, RedactionPolicyField
from tollway_contracts.redaction import RedactionPolicy, decode_response, encode, parse_policy, request_from

pytestmark = pytest.mark.unit


def test_limits_parse_lax_and_refuse_what_the_contract_refuses() -> None:
    limit = parse_limit({"scope": "key", "scope_id": "k", "budget_micro_usd": "500", "budget_period": "day"})
    assert limit.budget_micro_usd == 500 and limit.thresholds_percent == [50, 80, 100]
    assert parse_limits([limit.to_json_dict()]) == [limit]
    assert limit.replace(model="m").model == "m" and limit.model is None
    for bad, where in (
        ({"scope": "key", "scope_id": "k", "max_concurrent": -1}, "max_concurrent"),
        ({"scope": "org", "scope_id": "k"}, "scope"),
        ({"scope": "key", "scope_id": "k", "colour": 1}, "colour"),
        ({"scope": "key"}, "scope_id"),
    ):
        with pytest.raises(msgspec.ValidationError, match=where):
            parse_limit(bad)


def test_policy_and_redactor_bodies() -> None:
    assert parse_policy({}) == RedactionPolicy()
    with pytest.raises(msgspec.ValidationError, match="score_threshold"):
        parse_policy({"mode": "redact", "score_threshold": 1.5})
    with pytest.raises(msgspec.ValidationError, match="id"):
        request_from({"policy": {}, "texts": [{"id": "", "text": "x"}]})
    request = request_from({"policy": {"mode": "redact"}, "texts": [{"id": "/a", "text": "hi"}]})
    assert msgspec.json.decode(encode(request))["policy"]["mode"] == "redact"
    answer = decode_response(
        b'{"results": [{"id": "/a", "anonymized_text": "hi"}], "cache": {}, "model_version": "v"}'
    )
    assert answer.results[0].detections == [] and answer.cache.hits == 0
    with pytest.raises(
        msgspec.ValidationError, match="unknown field `future_field`"
    ):  # extra="forbid", as before
        decode_response(
            b'{"results": [{"id": "/a", "anonymized_text": "hi", "future_field": 1}], "cache": {}, "model_version": "v"}'
        )
    with pytest.raises(ValueError):
        decode_response(
            b'{"results": [{"id": "/a", "anonymized_text": "hi", "detections": [{"start": -1}]}]}'
        )


class _Body(pydantic.BaseModel):
    limit: LimitField
    policy: RedactionPolicyField | None = None


def test_as_pydantic_fields() -> None:
    body = _Body.model_validate({"limit": {"scope": "team", "scope_id": "t"}, "policy": {"mode": "block"}})
    assert isinstance(body.limit, Limit) and body.policy == RedactionPolicy(mode="block")
    assert body.model_dump(mode="json")["policy"]["mode"] == "block"
    assert _Body.model_validate_json(body.model_dump_json()) == body
    with pytest.raises(pydantic.ValidationError, match="budget_micro_usd"):
        _Body.model_validate({"limit": {"scope": "team", "scope_id": "t", "budget_micro_usd": -5}})
    schema = _Body.model_json_schema()
    assert "budget_micro_usd" in str(schema) and "answers" in str(schema)


def test_provider_min_idle_connections_defaults_to_none_and_stays_within_max_connections() -> None:
    from tollway_contracts.catalogue import Provider

    assert Provider(base_url="http://p/v1").min_idle_connections == 0  # nothing opened ahead by default
    assert (
        msgspec.convert(
            {"base_url": "http://p/v1", "min_idle_connections": 500}, Provider
        ).min_idle_connections
        == 500
    )
    with pytest.raises(msgspec.ValidationError, match="at most max_connections"):
        msgspec.convert(
            {"base_url": "http://p/v1", "min_idle_connections": 9, "max_connections": 8}, Provider
        )
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"base_url": "http://p/v1", "min_idle_connections": -1}, Provider)
