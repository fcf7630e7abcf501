#!/usr/bin/env bash
# The whole comparison in one command; writes docs/benchmarks.md and docs/benchmarks/results.json.
# Arguments pass through to `python -m bench` (see --help).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v wrk >/dev/null || { echo "installing wrk (Debian)" >&2; apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
ulimit -n "$(ulimit -Hn)" || true
exec uv run --no-sync python -m bench "$@"
