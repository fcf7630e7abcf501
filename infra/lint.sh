#!/usr/bin/env bash
# The reviewer's gates, run by .ci/run before the stack starts:
#   ruff (lint + format check) over the whole repository,
#   mypy strict over the shipped packages (libs/*/src, services/*/src; config in pyproject.toml).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TOLLWAY_ROOT"
uv run --no-sync ruff check .
uv run --no-sync ruff format --check .
packages=()
for d in libs/*/src/tollway_* services/*/src/tollway_*; do packages+=(-p "$(basename "$d")"); done
uv run --no-sync mypy "${packages[@]}"
