"""Write the JSON Schemas of the contracts to ``libs/contracts/schemas/``.

Run ``python -m tollway_contracts.schema_export``; a test checks the committed
files equal what the models produce, so the schema files never drift. The
usage event's and the catalogue's schemas come from their msgspec Structs
(:func:`tollway_contracts.events.usage_event_json_schema`,
:func:`tollway_contracts.catalogue.catalogue_json_schema`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tollway_contracts.catalogue import catalogue_json_schema
from tollway_contracts.events import usage_event_json_schema

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> JSON Schema for every contract that has one."""
    return {
        "usage-event.v1.schema.json": usage_event_json_schema(),
        "catalogue.v1.schema.json": catalogue_json_schema(),
    }


def render(schema: dict[str, Any]) -> bytes:
    """Stable, indented JSON for committing."""
    return orjson.dumps(schema, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def main() -> None:
    """Regenerate every committed schema file from its model."""
    SCHEMA_DIR.mkdir(exist_ok=True)
    for name, schema in schemas().items():
        (SCHEMA_DIR / name).write_bytes(render(schema))


if __name__ == "__main__":
    main()
