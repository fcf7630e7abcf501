#!/usr/bin/env bash
# Installs what the local stack needs; idempotent and fast when all is present.
#   - Debian packages: postgresql, redis-server, a Java 17 runtime and Maven (when missing)
#   - uv (pip install uv) when missing
#   - Apache Kafka broker jars from Maven Central (infra/kafka/pom.xml), cached
#     outside the repository in ~/.cache/tollway/kafka-<version>/libs
#   - the Python workspace: uv sync --all-packages (.venv at the repo root)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TOLLWAY_ROOT"
t0=$SECONDS

# --- Debian packages ---------------------------------------------------------
missing=()
command -v pg_ctlcluster >/dev/null && [[ -x "/usr/lib/postgresql/$PG_VERSION/bin/postgres" ]] \
  || missing+=(postgresql "postgresql-$PG_VERSION")
command -v valkey-server >/dev/null || command -v redis-server >/dev/null || missing+=(redis-server)
command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
command -v mvn >/dev/null || missing+=(maven)
command -v curl >/dev/null || missing+=(curl)
# Headless browser for the dashboard test (PLATFORM-NOTES: Debian's chromium, never a downloaded one).
command -v chromium >/dev/null || missing+=(chromium)
command -v python3 >/dev/null || missing+=(python3 python3-pip)
# promtool parses the alert rules and dashboard queries in CI (tests/observability).
command -v promtool >/dev/null || missing+=(prometheus)
if ((${#missing[@]})); then
  [[ $EUID -eq 0 ]] || die "missing packages (${missing[*]}) and not root: install them with apt-get"
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
  # A package's postinst may have started its server through the init script
  # (no systemd here). Stop those we just installed, so that up.sh starts them
  # itself: its own Valkey under .tollway/, and a cluster that down.sh stops.
  if [[ " ${missing[*]} " == *" redis-server "* ]]; then
    /etc/init.d/redis-server stop >/dev/null 2>&1 || true
  fi
  if [[ " ${missing[*]} " == *" postgresql "* ]]; then
    pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" stop >/dev/null 2>&1 || true
  fi
fi

# --- uv ---------------------------------------------------------------------
if ! command -v uv >/dev/null; then
  log "installing uv (pip install uv)"
  python3 -m pip install -q uv 2>/dev/null || python3 -m pip install -q --break-system-packages uv
  hash -r
  command -v uv >/dev/null || export PATH="$HOME/.local/bin:$PATH"
  command -v uv >/dev/null || die "uv installed but not on PATH"
fi

# --- Kafka jars ---------------------------------------------------------------
pom_version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' infra/kafka/pom.xml)"
[[ "$pom_version" == "$KAFKA_VERSION" ]] \
  || die "infra/kafka/VERSION ($KAFKA_VERSION) and infra/kafka/pom.xml ($pom_version) disagree"
if [[ -f "$KAFKA_LIBS/.complete" ]] && cmp -s "$KAFKA_LIBS/.complete" infra/kafka/pom.xml; then
  :
else
  log "fetching Apache Kafka $KAFKA_VERSION jars from Maven Central into $KAFKA_LIBS"
  tmp="$KAFKA_HOME/libs.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  mvn -q -B -Dstyle.color=never -f infra/kafka/pom.xml dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$tmp" \
    || { rm -rf "$tmp"; die "mvn could not fetch the Kafka jars (see output above)"; }
  ls "$tmp"/kafka_2.13-"$KAFKA_VERSION".jar >/dev/null || die "kafka_2.13-$KAFKA_VERSION.jar missing after mvn"
  cp infra/kafka/pom.xml "$tmp/.complete"
  rm -rf "$KAFKA_LIBS"; mv "$tmp" "$KAFKA_LIBS"
fi

# --- Python workspace ---------------------------------------------------------
log "uv sync --all-packages"
uv sync --all-packages -q

log "install done in $((SECONDS - t0))s (Kafka $KAFKA_VERSION in $KAFKA_LIBS)"
