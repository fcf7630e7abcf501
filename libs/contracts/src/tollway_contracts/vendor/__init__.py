"""Third-party specifications vendored with their licences (see each folder's README)."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def openai_openapi_path() -> Path:
    """Path of OpenAI's OpenAPI 3.1 description (YAML, ~3 MB, MIT; ``vendor/openai/README.md``)."""
    return _HERE / "openai" / "openai-openapi.yaml"
