"""msgspec contracts as fields of pydantic models (the admin API, quota's bodies).

The contracts the edge needs at run time (limits, redaction policy, catalogue)
are ``msgspec.Struct`` s, so the edge's workers never import pydantic; the
admin API's models are still pydantic. Each ``...Field`` below is the contract annotated so a pydantic model validates it from JSON-shaped data (msgspec's checks, lax
as pydantic's: ``"5"`` for ``5``), writes it as msgspec's builtins, and shows
msgspec's JSON Schema of it. A msgspec error becomes a pydantic
``ValidationError`` whose message is msgspec's, e.g. ``Value error, Expected
`int` >= 0 - at `$.budget_micro_usd```.

Importing this module imports pydantic: the edge never does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import msgspec
from pydantic import PlainSerializer, PlainValidator, WithJsonSchema

from tollway_contracts.limits import Limit
from tollway_contracts.redaction import RedactionPolicy

T = TypeVar("T", bound=msgspec.Struct)


def converter(cls: type[T]) -> Callable[[Any], T]:
    """A pydantic validator of ``cls``: an instance as it is, JSON-shaped data
    through ``msgspec.convert`` (lax). Raises msgspec.ValidationError (a
    ``ValueError``, which pydantic reports as a ``ValidationError``)."""

    def _validate(value: Any) -> T:
        if isinstance(value, cls):
            return value
        return msgspec.convert(value, cls, strict=False)

    return _validate


def json_schema(cls: type[msgspec.Struct]) -> dict[str, Any]:
    """msgspec's JSON Schema of ``cls``, inlined (no ``$ref`` to ``$defs``)."""
    schema = msgspec.json.schema(cls)
    inline: dict[str, Any] = schema.get("$defs", {}).get(cls.__name__, schema)
    return inline


LimitField = Annotated[
    Limit,
    PlainValidator(converter(Limit)),
    PlainSerializer(msgspec.to_builtins),
    WithJsonSchema(json_schema(Limit)),
]
""":class:`tollway_contracts.limits.Limit` as a pydantic field."""

RedactionPolicyField = Annotated[
    RedactionPolicy,
    PlainValidator(converter(RedactionPolicy)),
    PlainSerializer(msgspec.to_builtins),
    WithJsonSchema(json_schema(RedactionPolicy)),
]
""":class:`tollway_contracts.redaction.RedactionPolicy` as a pydantic field."""
