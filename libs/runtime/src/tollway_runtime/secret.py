"""A secret string whose printed forms never show it (pydantic's ``SecretStr``
without pydantic: the edge's workers never import pydantic)."""

from __future__ import annotations

from typing import Any, Final

MASK: Final = "**********"
"""What ``str``, ``repr`` and ``format`` show instead of a non-empty secret."""


class Secret:
    """An immutable secret string: ``str()``, ``repr()``, f-strings, logs and
    tracebacks show :data:`MASK` (``''`` when empty), never the value; read it
    with :meth:`get_secret_value`. Equal to another ``Secret`` of the same value;
    picklable (the edge's supervisor hands its settings to the workers).
    """

    __slots__ = ("_value",)

    _value: str

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"a Secret holds a str, not {type(value).__name__}")
        object.__setattr__(self, "_value", value)

    def get_secret_value(self) -> str:
        """The secret itself."""
        return self._value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Secret is immutable")

    def __repr__(self) -> str:
        return f"Secret('{self}')"

    def __str__(self) -> str:
        return MASK if self._value else ""

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __len__(self) -> int:
        return len(self._value)

    def __reduce__(self) -> tuple[type[Secret], tuple[str]]:
        return (Secret, (self._value,))
