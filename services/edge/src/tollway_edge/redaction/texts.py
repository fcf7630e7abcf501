"""Redaction, pure: the unit of analysis and the check of the redactor's
answer (DESIGN "Request path" step 4, contract ``tollway_contracts.redaction``).

- :class:`TextRef` — one text of a request body with its id (the body walk,
  :mod:`tollway_edge.redaction.walk`, finds them);
- :func:`check_answer` — the redactor's answer, complete or fail closed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tollway_contracts.redaction import RedactionText, RedactResponse


@dataclass(frozen=True, slots=True)
class TextRef:
    """One text of the request body.

    Attributes:
        id: JSON-pointer-like id (see module doc), stable for a given body.
        text: the text as the provider would see it.
    """

    id: str
    text: str


class RedactionUnavailable(Exception):
    """The redactor could not give a complete answer in time: connection error,
    timeout past the deadline, non-200, malformed body, or a missing text.

    The edge answers 503 and sends nothing to the provider (fail closed).
    """


def check_answer(texts: Sequence[TextRef | RedactionText], answer: RedactResponse) -> dict[str, str]:
    """Map id -> anonymised text.

    Raises:
        RedactionUnavailable: the answer lacks one of ``texts`` (fail closed).
    """
    by_id = {r.id: r.anonymized_text for r in answer.results}
    missing = [t.id for t in texts if t.id not in by_id]
    if missing:
        raise RedactionUnavailable(f"redactor answer lacks {len(missing)} text(s)")
    return by_id
