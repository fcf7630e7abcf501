"""Secrets never in logs (issue 10): runs LAST in the suite (``tests/zz_logs``
sorts after every other test directory) and reads every log line the suite's
services wrote — the stack's ``.tollway/logs/*.log`` and every ``*.log`` the
tests' private services wrote under pytest's base temp directory — looking
for key secrets, the admin and seed tokens, the key pepper, and the prompt
markers the tests sent (``tests/faults/rig.py`` lists each API key and prompt
marker it creates in ``<basetemp>/tollway-test-secrets.txt``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tollway_contracts.keys import parse_key

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SECRETS_FILE = "tollway-test-secrets.txt"  # tests/faults/rig.py writes it


def _secrets(basetemp: Path) -> dict[str, str]:
    """What must never appear: value -> what it is."""
    found: dict[str, str] = {}
    for env in ("TOLLWAY_ADMIN_TOKEN", "TOLLWAY_KEY_PEPPER", "TOLLWAY_QUOTA_SEED_TOKEN"):
        if os.environ.get(env):
            found[os.environ[env]] = env
    values = [os.environ.get("OPENAI_API_KEY", "")]
    path = basetemp / SECRETS_FILE
    if path.exists():
        values += path.read_text().split()
    for value in filter(None, values):
        parsed = parse_key(value)
        if parsed is not None:  # the key id is not secret (logs name it); its secret is
            found[parsed.secret] = "an API key's secret"
        elif value.startswith("prompt-marker-"):
            found[value] = "prompt text"
        else:
            found[value] = "a test secret"
    return found


def _log_files(basetemp: Path) -> list[Path]:
    stack_logs = Path(os.environ.get("TOLLWAY_LOGS_DIR", ROOT / ".tollway" / "logs"))
    files = sorted(stack_logs.glob("*.log")) if stack_logs.is_dir() else []
    return files + sorted(basetemp.rglob("*.log"))


def test_no_secret_or_prompt_text_in_any_log(tmp_path_factory: pytest.TempPathFactory) -> None:
    basetemp = tmp_path_factory.getbasetemp()
    secrets = _secrets(basetemp)
    assert secrets, "no secret to look for: run with the stack's env (bash infra/test.sh)"
    pattern = re.compile("|".join(re.escape(s) for s in sorted(secrets, key=len, reverse=True)).encode())
    files = _log_files(basetemp)
    lines = 0
    leaks: list[str] = []
    for path in files:
        with path.open("rb") as f:
            for n, line in enumerate(f, 1):
                lines += 1
                m = pattern.search(line)
                if m:
                    leaks.append(f"{path}:{n}: {secrets[m.group().decode()]}")
    assert lines > 0, f"no log line found in {files}"
    assert not leaks, "\n".join(leaks[:20])
