"""Redaction policy, and the edge <-> redactor HTTP contract.

A policy is set per API key or per team through the quota admin API; the
effective one (key's, else team's, else off) reaches the edge in the
``redaction_policy`` column of ``catalog.edge_principals``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RedactionMode = Literal["off", "detect", "redact", "block"]


class RedactionPolicy(BaseModel):
    """What the edge does with personal data in a call's texts.

    Attributes:
        mode: ``off`` (nothing), ``detect`` (analyse, record counts only),
            ``redact`` (replace with typed numbered placeholders such as
            ``<PERSON_1>``), ``block`` (refuse with a 400 naming the entity
            types found, never the values).
        entity_types: Presidio entity types to act on; null = the redactor's
            configured default set.
        score_threshold: minimum recognizer score, 0..1; null = the
            redactor's configured default.
        reversible: in ``redact`` mode, restore the original values in the
            answer (the mapping stays in the edge's memory for the call).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: RedactionMode = "off"
    entity_types: list[str] | None = None
    score_threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    reversible: bool = False
