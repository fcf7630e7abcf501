#!/usr/bin/env bash
# Stops what infra/up.sh started, by pid file: services, fake provider, Kafka,
# Valkey, and the Postgres cluster (only if up.sh started it). SIGTERM first,
# SIGKILL after a timeout (TOLLWAY_STOP_TIMEOUT, default 20 s; Kafka 60 s; the edge
# TOLLWAY_EDGE_STOP_TIMEOUT, default 50 s, long enough for its drain).
# Data stays in .tollway/ (Kafka, Valkey) and in the Postgres cluster.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TOLLWAY_ROOT"
timeout_default="${TOLLWAY_STOP_TIMEOUT:-20}"

# stop NAME [TIMEOUT]: TERM the process group of $RUN/NAME.pid, then KILL it.
stop() {
  local name=$1 timeout=${2:-$timeout_default} pid
  local f="$RUN/$name.pid"
  [[ -s "$f" ]] || return 0
  pid="$(cat "$f")"
  if ! [[ "$pid" =~ ^[0-9]+$ ]] || ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$f"; return 0
  fi
  log "stopping $name (pid $pid)"
  # Processes started by up.sh lead their own process group (setsid), so the
  # group signal also reaches children (uv run -> python). Valkey daemonizes
  # itself and is signalled by pid only.
  # The wait covers the whole group: `uv run` may exit before the python it
  # started has drained (the edge takes up to its drain time).
  local target=$pid
  if [[ "$(ps -o pgid= -p "$pid" | tr -d ' ')" == "$pid" ]]; then
    target="-$pid"
  fi
  kill -TERM -- "$target" 2>/dev/null || true
  local deadline=$((SECONDS + timeout))
  while kill -0 -- "$target" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      warn "$name did not stop within ${timeout}s; killing it"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  rm -f "$f"
}

# With arguments, stop only those (e.g. `bash infra/down.sh kafka tollway_edge`);
# names: tollway_<service>, fake_provider, kafka, valkey, postgres.
ARGS=" $* "
only() { [[ -z "${ARGS// /}" ]] || [[ "$ARGS" == *" $1 "* ]]; }

# The edge drains on SIGTERM (tollway_edge.drain): accept grace 3 s + drain
# deadline 25 s + cut 2 s + cleanup 1 s + journal flush 10 s = 41 s at most,
# plus the supervisor's 5 s of slack; killing it sooner cuts in-flight streams.
edge_timeout="${TOLLWAY_EDGE_STOP_TIMEOUT:-50}"
for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do
  read -r pkg _port <<<"${SERVICES[$i]}"
  if [[ $pkg == tollway_edge ]]; then
    only "$pkg" && stop "$pkg" "$edge_timeout"
  else
    only "$pkg" && stop "$pkg"
  fi
done
only fake_provider && stop fake_provider
only kafka && stop kafka "${TOLLWAY_KAFKA_STOP_TIMEOUT:-60}"
only valkey && stop valkey
if only postgres && [[ -f "$RUN/postgres.started" ]]; then
  if pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" status >/dev/null 2>&1; then
    log "stopping Postgres cluster $PG_VERSION/$PG_CLUSTER"
    pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" stop -m fast || warn "pg_ctlcluster stop failed"
  fi
  rm -f "$RUN/postgres.started"
fi
if (($#)); then log "stopped: $* (logs in $LOGS/)"; else log "stack stopped (logs kept in $LOGS/)"; fi
