#!/usr/bin/env bash
# Runs the workspace's tests against the local stack: `uv run --no-sync pytest`
# with .tollway/stack.env (and .tollway/dev.env, when present) exported.
# Extra arguments go to pytest, e.g. `bash infra/test.sh libs/testing -k fake`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TOLLWAY_ROOT"
if [[ -f "$STACK_ENV" ]]; then
  set -a; . "$STACK_ENV"; set +a
else
  warn "no $STACK_ENV: run 'bash infra/up.sh' first (tests fall back to the default local addresses)"
fi
if [[ -f "$DEV_ENV" ]]; then
  set -a; . "$DEV_ENV"; set +a
fi
exec uv run --no-sync pytest "$@"
