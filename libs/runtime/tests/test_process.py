"""Process helpers: optional modules kept out of an import, memory settled after start."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from tollway_runtime.process import settle_memory, without_optional_modules


def test_a_blocked_module_is_not_importable_inside_the_block_and_is_afterwards() -> None:
    name = "tollway_runtime_test_absent_helper"
    assert name not in sys.modules
    with without_optional_modules([name, "json"]), pytest.raises(ImportError):
        __import__(name)
    assert name not in sys.modules  # the block's marker is gone: a later import searches again
    import json  # already imported before the block: left alone

    assert json.dumps([1]) == "[1]"


def test_a_library_imported_in_the_block_takes_its_not_installed_path() -> None:
    code = (
        "import sys\n"
        "from tollway_runtime.process import without_optional_modules\n"
        "with without_optional_modules(['rich', 'opentelemetry.sdk.metrics']):\n"
        "    import structlog, redis.asyncio\n"
        "print('rich' in sys.modules, 'opentelemetry.sdk.metrics' in sys.modules)\n"
        "import opentelemetry.sdk.metrics\n"  # importable again after the block
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_settle_memory_freezes_what_exists() -> None:
    try:
        settle_memory()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    settle_memory(freeze=False)
    assert gc.get_freeze_count() == 0


def test_settle_memory_sets_the_first_threshold_only() -> None:
    before = gc.get_threshold()
    try:
        settle_memory(freeze=False, gen0_threshold=5_000)
        assert gc.get_threshold() == (5_000, before[1], before[2])
    finally:
        gc.set_threshold(*before)
