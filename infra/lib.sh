# Shared definitions for infra/*.sh. Sourced, not run.
# shellcheck shell=bash

TOLLWAY_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$TOLLWAY_ROOT/.tollway"          # gitignored: logs, pid files, data, secrets
LOGS="$STATE/logs"
RUN="$STATE/run"
STACK_ENV="$STATE/stack.env"
DEV_ENV="$STATE/dev.env"

KAFKA_VERSION="$(tr -d '[:space:]' < "$TOLLWAY_ROOT/infra/kafka/VERSION")"
TOLLWAY_CACHE="${TOLLWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tollway}"
KAFKA_HOME="$TOLLWAY_CACHE/kafka-$KAFKA_VERSION"
KAFKA_LIBS="$KAFKA_HOME/libs"

PG_VERSION="${TOLLWAY_PG_VERSION:-15}"
PG_CLUSTER="main"
PG_PORT=5432
VALKEY_PORT=6379
KAFKA_PORT=9092
KAFKA_CONTROLLER_PORT=9093
FAKE_PROVIDER_PORT=9000

# Tollway services in start order: "<python package> <port of /readyz>".
SERVICES=(
  "tollway_quota 8082"
  "tollway_ledger 8084"
  "tollway_redactor 8081"
  "tollway_edge 8080"
  "tollway_reporting 8083"
)

log()  { printf '\033[1m[tollway]\033[0m %s\n' "$*" >&2; }
warn() { printf '\033[33m[tollway] WARNING:\033[0m %s\n' "$*" >&2; }
die()  { printf '\033[31m[tollway] ERROR:\033[0m %s\n' "$*" >&2; exit 1; }

# port_open PORT: something accepts TCP connections on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pid_alive NAME: the pid in $RUN/NAME.pid is a live process.
pid_alive() {
  local f="$RUN/$1.pid" pid
  [[ -s "$f" ]] || return 1
  pid="$(cat "$f")"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null
}

# tail_log FILE: last lines of a log, for error messages.
tail_log() {
  [[ -f "$1" ]] || return 0
  echo "----- last 25 lines of $1 -----" >&2
  tail -n 25 "$1" >&2 || true
  echo "-----" >&2
}

# uv installed by `pip install --user` lands in ~/.local/bin.
command -v uv >/dev/null 2>&1 || export PATH="$HOME/.local/bin:$PATH"

venv_python() { echo "$TOLLWAY_ROOT/.venv/bin/python"; }
