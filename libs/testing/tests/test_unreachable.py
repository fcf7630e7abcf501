"""A service that is down makes the fixture FAIL with a hint, never skip."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

CASES = {
    "postgres_dsn": ("TOLLWAY_POSTGRES_DSN", "postgresql://tollway:tollway@127.0.0.1:1/tollway"),
    "valkey_url": ("TOLLWAY_VALKEY_URL", "redis://127.0.0.1:1/0"),
    "kafka_bootstrap_servers": ("TOLLWAY_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1"),
}


@pytest.mark.parametrize("fixture", sorted(CASES))
def test_unreachable_service_fails_with_hint(tmp_path: Path, fixture: str) -> None:
    var, value = CASES[fixture]
    (tmp_path / "test_x.py").write_text(
        textwrap.dedent(
            f"""
            async def test_needs_service({fixture}):
                pass
            """
        )
    )
    env = {**os.environ, var: value}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            "-o",
            "asyncio_mode=auto",
            "-o",
            "asyncio_default_fixture_loop_scope=session",
            str(tmp_path),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "bash infra/up.sh" in out
    assert "not reachable" in out
    assert "skipped" not in out
