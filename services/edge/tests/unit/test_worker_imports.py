"""What a worker process receives and imports (docs/edge-performance.md, "Idle RSS").

The supervisor validates the settings (pydantic-settings) and hands each worker
the plain values (``tollway_edge.config.EdgeConfig``); a worker imports the
application without the libraries it never uses on the data plane, pydantic
included (the contracts it needs are msgspec structs).
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from pydantic import SecretStr

from tollway_edge.config import EdgeConfig
from tollway_edge.settings import EdgeSettings
from tollway_runtime.secret import Secret

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[4]


def _settings() -> EdgeSettings:
    return EdgeSettings(
        key_pepper=SecretStr("pepper-value-1"),
        quota_seed_token=SecretStr("seed-value-2"),
        journal_dir=Path("/tmp/journal-x"),
        redactor_urls="http://a:1, ,http://b:2",
        log_levels={"aiokafka": "ERROR"},
        port=18123,
        catalogue_path=str(REPO / "infra" / "catalogue.yaml"),
    )


def test_config_names_every_setting() -> None:
    assert {f.name for f in fields(EdgeConfig)} == set(EdgeSettings.model_fields)


def test_config_carries_the_validated_values() -> None:
    settings = _settings()
    config = settings.config()
    for name in EdgeSettings.model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr):  # pydantic's, in the settings; our own, in the config
            value = Secret(value.get_secret_value())
        assert getattr(config, name) == value, name
    assert config.key_pepper.get_secret_value() == "pepper-value-1"
    assert isinstance(config.key_pepper, Secret) and isinstance(config.quota_seed_token, Secret)
    assert "value-1" not in repr(config) and "value-2" not in repr(config)
    assert config.redactor_url_list == ["http://a:1", "http://b:2"] == settings.redactor_url_list
    assert config.journal == settings.journal
    assert config.journal.root_dir == Path("/tmp/journal-x")
    assert pickle.loads(pickle.dumps(config)) == config  # what the supervisor sends a worker


_WORKER_IMPORTS = """
import pickle, sys
config = pickle.loads(sys.stdin.buffer.read())
import tollway_edge.workers as w  # what a spawned worker imports to find its target
from tollway_edge.lean import lean_imports
w.configure_logging(config.log_level, config.log_format, service="edge", levels=config.log_levels)
with lean_imports():
    from tollway_edge.app import create_app
create_app(config)  # parses the catalogue, builds every part (connections open at startup)
from tollway_edge.auth.principals import parse_limits, parse_redaction_policy
parse_limits('[{"scope": "key", "scope_id": "k", "budget_micro_usd": 5, "budget_period": "day"}]')
parse_redaction_policy('{"mode": "redact", "entity_types": ["PERSON"]}')
print(" ".join(sorted(sys.modules)))
"""


def test_a_worker_imports_no_unused_library() -> None:
    """A worker's imports (as ``workers._worker`` and ``serve`` do them) leave out
    pydantic and pydantic-settings (and the settings module) and the optional
    integrations that ``tollway_edge.lean`` keeps out."""
    payload = pickle.dumps(_settings().config())
    out = subprocess.run(
        [sys.executable, "-c", _WORKER_IMPORTS], input=payload, capture_output=True, check=True, timeout=120
    ).stdout.decode()
    loaded = {name.split(".")[0] for name in out.split()}
    assert "tollway_edge" in loaded and "aiohttp" in loaded
    unwanted = {
        "pydantic",
        "pydantic_core",
        "pydantic_settings",
        "tollway_edge.settings",
        "rich",
        "pygments",
        "greenlet",
    }
    unwanted |= {"opentelemetry.metrics", "opentelemetry.sdk"}
    unwanted |= {"redis"}  # a single-node Valkey URL is served by tollway_admission's own client
    assert not unwanted & (loaded | set(out.split()))
