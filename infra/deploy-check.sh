#!/usr/bin/env bash
# The deployment checks (issue 14, docs/deploy.md "What CI checks"), offline:
#
#   bash infra/deploy-check.sh          both steps, in order
#   bash infra/deploy-check.sh chart    helm lint --strict + helm template for the default values and
#                                       every k8s/examples/*.yaml, each rendered object validated against
#                                       the Kubernetes 1.34 API schemas (kubernetes-validate --strict), the
#                                       chart tests and the Tiltfile evaluation (tests/deploy, unit tier)
#   bash infra/deploy-check.sh images   a Debian base image made with debootstrap, every service image
#                                       built with podman from the Dockerfile, each image's entrypoint
#                                       started from its mounted root under chroot against the running
#                                       local stack, after the images' migrate commands (test_images.py)
#
# Everything slow is cached outside the repository, under ~/.cache/tollway:
#   go/bin/helm (+ go/, gocache/)  helm built from the Go module proxy (about 2.5-4.5 min cold)
#   podman/storage.conf, storage/  podman's image store: the base image and the layer cache
#   podman/base.stamp              what the base image was made from (rebuilt when it changes)
# The images step needs root (debootstrap, podman image mount, chroot) and the
# local stack up (infra/up.sh), as .ci/run has it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TOLLWAY_ROOT"

HELM_VERSION=v3.22.0
KUBE_VERSION=1.34.0
BASE_IMAGE=localhost/tollway-base:bookworm
IMAGE_TAG="${TOLLWAY_IMAGE_TAG:-ci}"
DEPLOY_SERVICES=(edge redactor quota ledger reporting)
OUT="$STATE/deploy"                 # rendered manifests and logs (gitignored .tollway/)
HELM="$TOLLWAY_CACHE/go/bin/helm"
PODMAN_DIR="$TOLLWAY_CACHE/podman"
export CONTAINERS_STORAGE_CONF="$PODMAN_DIR/storage.conf"
export TOLLWAY_HELM="$HELM" TOLLWAY_IMAGE_TAG="$IMAGE_TAG"

step_time() { log "deploy-check: $1: $(($SECONDS - $2))s"; }

# --- helm -----------------------------------------------------------------------------
ensure_helm() {
  if [[ -x "$HELM" ]] && "$HELM" version --short 2>/dev/null | grep -q "^${HELM_VERSION%.*}"; then
    return 0
  fi
  command -v go >/dev/null || [[ -x /usr/local/go/bin/go ]] || die "no Go toolchain: helm is built with 'go install' (PLATFORM-NOTES)"
  local go_bin; go_bin="$(command -v go || echo /usr/local/go/bin/go)"
  log "building helm $HELM_VERSION with go install (cached in $TOLLWAY_CACHE/go; a few minutes cold)"
  GOPATH="$TOLLWAY_CACHE/go" GOCACHE="$TOLLWAY_CACHE/gocache" GOFLAGS=-modcacherw \
    "$go_bin" install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
  [[ -x "$HELM" ]] || die "go install finished but $HELM is missing"
}

# values files to check: the defaults ("default") and every example
values_sets() {
  echo default
  local f
  for f in k8s/examples/*.yaml; do echo "$f"; done
}

chart_step() {
  local t0=$SECONDS t
  mkdir -p "$OUT"
  t=$SECONDS; ensure_helm; step_time "helm $HELM_VERSION ready" "$t"
  t=$SECONDS
  local v name args rendered=()
  while read -r v; do
    args=(); name=default
    if [[ $v != default ]]; then args=(-f "$v"); name="$(basename "$v" .yaml)"; fi
    "$HELM" lint --strict --kube-version "$KUBE_VERSION" k8s "${args[@]}" >"$OUT/lint-$name.log" 2>&1 \
      || { cat "$OUT/lint-$name.log" >&2; die "helm lint --strict failed for $v"; }
    "$HELM" template tollway k8s --namespace tollway --kube-version "$KUBE_VERSION" "${args[@]}" \
      >"$OUT/rendered-$name.yaml" 2>"$OUT/template-$name.log" \
      || { cat "$OUT/template-$name.log" >&2; die "helm template failed for $v"; }
    rendered+=("$OUT/rendered-$name.yaml")
  done < <(values_sets)
  step_time "helm lint --strict + helm template (${#rendered[@]} values sets)" "$t"

  # Every rendered object against the Kubernetes API's JSON schemas. The two
  # CRD kinds have no schema here: tests/deploy/test_chart.py checks what
  # their operators require; any other kind without a schema fails.
  t=$SECONDS
  uv run --no-sync kubernetes-validate -k "$KUBE_VERSION" --strict --quiet "${rendered[@]}" >"$OUT/validate.log" 2>&1 \
    || { cat "$OUT/validate.log" >&2; die "kubernetes-validate found invalid objects"; }
  if grep -v -E "Couldn't find schema for kind (KafkaTopic|ServiceMonitor) " "$OUT/validate.log" | grep -q .; then
    cat "$OUT/validate.log" >&2; die "kubernetes-validate: unexpected warnings"
  fi
  step_time "kubernetes-validate -k $KUBE_VERSION --strict" "$t"

  t=$SECONDS
  TOLLWAY_REQUIRE_HELM=1 bash infra/test.sh tests/deploy/test_chart.py tests/deploy/test_tiltfile.py -q -p no:cacheprovider
  step_time "chart tests + Tiltfile evaluation" "$t"
  step_time "chart step" "$t0"
}

# --- images -----------------------------------------------------------------------------
ensure_podman() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  if ((${#missing[@]})); then
    [[ $EUID -eq 0 ]] || die "missing ${missing[*]} and not root"
    log "installing ${missing[*]} (Debian)"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  fi
  mkdir -p "$PODMAN_DIR"
  cat >"$CONTAINERS_STORAGE_CONF.tmp" <<EOF
# Written by infra/deploy-check.sh: Tollway's image store, outside the repository.
[storage]
driver = "overlay"
graphroot = "$PODMAN_DIR/storage"
runroot = "$PODMAN_DIR/run"
EOF
  mv "$CONTAINERS_STORAGE_CONF.tmp" "$CONTAINERS_STORAGE_CONF"
}

# The base image: Debian bookworm (minbase) with Debian's Python 3.11 and its
# venv module, the equivalent of python:3.11-slim-bookworm, which cannot be
# pulled here. This machine's extra CA certificates (its egress proxy) go in,
# so RUN steps reach PyPI; SSL_CERT_FILE/PIP_CERT point pip and uv at them.
ensure_base_image() {
  local recipe stamp="$PODMAN_DIR/base.stamp"
  recipe="$(printf 'bookworm minbase python3,python3-venv,ca-certificates v1\n'; cat /usr/local/share/ca-certificates/*.crt 2>/dev/null | sha256sum)"
  if podman image exists "$BASE_IMAGE" && [[ -f $stamp ]] && [[ "$(cat "$stamp")" == "$recipe" ]]; then
    return 0
  fi
  local rootfs="$PODMAN_DIR/rootfs.$$"
  rm -rf "$rootfs"
  log "making $BASE_IMAGE with debootstrap (about a minute)"
  debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates bookworm "$rootfs" \
    http://deb.debian.org/debian >"$OUT/debootstrap.log" 2>&1 \
    || { tail -n 30 "$OUT/debootstrap.log" >&2; rm -rf "$rootfs"; die "debootstrap failed"; }
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
    chroot "$rootfs" update-ca-certificates >/dev/null 2>&1
  fi
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/man/*
  tar -C "$rootfs" -c . | podman import \
    --change 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
    --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
  printf '%s' "$recipe" >"$stamp"
}

images_step() {
  local t0=$SECONDS t s
  mkdir -p "$OUT"
  [[ $EUID -eq 0 ]] || die "the images step needs root (debootstrap, podman image mount, chroot)"
  t=$SECONDS; ensure_podman; ensure_base_image; step_time "base image $BASE_IMAGE ready" "$t"
  for s in "${DEPLOY_SERVICES[@]}"; do
    t=$SECONDS
    podman build --isolation=chroot --cgroup-manager=cgroupfs --layers \
      --build-arg "BASE_IMAGE=$BASE_IMAGE" --build-arg "SERVICE=$s" --target "$s" \
      -t "localhost/tollway-$s:$IMAGE_TAG" . >"$OUT/build-$s.log" 2>&1 \
      || { tail -n 40 "$OUT/build-$s.log" >&2; die "podman build of $s failed (log: $OUT/build-$s.log)"; }
    step_time "image tollway-$s built" "$t"
  done
  podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "tollway-(base|edge|redactor|quota|ledger|reporting)" >&2 || true
  # Superseded layers from older builds; recent ones stay as the build cache.
  podman image prune -f --filter until=72h >/dev/null 2>&1 || true

  t=$SECONDS
  TOLLWAY_REQUIRE_HELM=1 TOLLWAY_IMAGE_SMOKE=1 \
    bash infra/test.sh tests/deploy/test_images.py -q -p no:cacheprovider
  step_time "image smoke tests (migrate commands, then each entrypoint)" "$t"
  step_time "images step" "$t0"
}

case "${1:-all}" in
  chart) chart_step ;;
  images) ensure_helm; images_step ;;
  all) t_all=$SECONDS; chart_step; images_step; step_time "total" "$t_all" ;;
  *) die "usage: bash infra/deploy-check.sh [chart|images|all]" ;;
esac
