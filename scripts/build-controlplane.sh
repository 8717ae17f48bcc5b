#!/usr/bin/env bash
# build-controlplane.sh：從釘選的原始碼建置 etcd 與 kube-apiserver，放進每個使用者的快取。
# Build etcd and kube-apiserver from pinned sources into the per-user cache.
#
#   scripts/build-controlplane.sh              build if missing, else say where they are
#   scripts/build-controlplane.sh --print-dir  print the binary directory and exit
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Settings（可用環境變數覆寫 / override with environment variables）
# 進度訊息的間隔秒數。 / Seconds between progress lines.
PROGRESS_EVERY="${PROGRESS_EVERY:-30}"

# binaries_work 在兩個執行檔都在而且能執行時成功。 / binaries_work succeeds when both binaries exist and run.
binaries_work() {
  local dir="$1"
  [[ -x "${dir}/etcd" && -x "${dir}/kube-apiserver" ]] &&
    "${dir}/etcd" --version >/dev/null 2>&1 &&
    "${dir}/kube-apiserver" --version >/dev/null 2>&1
}

# 背景建置的 PID、記錄檔與暫存目錄；中斷時由 cleanup 收拾。 / The background build's PID, log and temporary directory; cleanup tidies them on interruption.
BUILD_PID=""
BUILD_LOG=""
BUILD_TMP=""

cleanup() {
  [[ -z "${BUILD_PID}" ]] || kill "${BUILD_PID}" 2>/dev/null || true
  [[ -z "${BUILD_LOG}" ]] || rm -f "${BUILD_LOG}"
  [[ -z "${BUILD_TMP}" ]] || rm -rf "${BUILD_TMP}"
}

# build_one 建置一個執行檔；go build 會安靜好幾分鐘，所以定時回報編譯了幾個套件、花了多久。
# build_one builds one binary; go build is silent for minutes, so report the packages compiled and the time taken at intervals.
build_one() {
  local pkg="$1" out="$2" label="$3" ldflags="${4:-}" started=${SECONDS} count
  BUILD_LOG="$(mktemp)"
  log "building ${label} (${pkg})"
  (cd "${REPO_ROOT}/scripts/controlplane" && exec go build -v -ldflags "${ldflags}" -o "${out}" "${pkg}") 2>"${BUILD_LOG}" &
  BUILD_PID=$!
  while kill -0 "${BUILD_PID}" 2>/dev/null; do
    for _ in $(seq "${PROGRESS_EVERY}"); do
      kill -0 "${BUILD_PID}" 2>/dev/null || break
      sleep 1
    done
    if kill -0 "${BUILD_PID}" 2>/dev/null; then
      count="$(grep -c . "${BUILD_LOG}" || true)"
      log "still building ${label}: ${count} packages compiled, $(seconds_since "${started}") so far"
    fi
  done
  if ! wait "${BUILD_PID}"; then
    BUILD_PID=""
    tail -n 20 "${BUILD_LOG}" >&2
    die "building ${label} failed (its last lines are above)"
  fi
  BUILD_PID=""
  rm -f "${BUILD_LOG}"
  BUILD_LOG=""
  log "built ${label} in $(seconds_since "${started}")"
}

main() {
  local dir started=${SECONDS}
  dir="$(controlplane_bin_dir)"
  if [[ "${1:-}" == "--print-dir" ]]; then
    printf '%s\n' "${dir}"
    return
  fi
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  if binaries_work "${dir}"; then
    log "control plane already built in ${dir}"
    return
  fi
  [[ -z "${INFORMER_LAB_BIN_DIR:-}" ]] || die "INFORMER_LAB_BIN_DIR=${dir} has no working etcd and kube-apiserver"

  log "building the local control plane into ${dir}"
  log "the first build takes about 10 minutes on 2 cores; later runs reuse it"
  mkdir -p "$(dirname "${dir}")"
  # 先建到暫存目錄，全部成功才搬過去，中斷的建置不會留下半套。
  # Build into a temporary directory and move it into place only when all succeeded, so an interrupted build leaves no half set.
  trap cleanup EXIT
  BUILD_TMP="$(mktemp -d "${dir}.tmp.XXXXXX")"
  build_one go.etcd.io/etcd/server/v3 "${BUILD_TMP}/etcd" etcd
  # 跟正式版本一樣把版本號寫進執行檔，/version 與 kubectl version 才會顯示 v1.37.x 而不是 v0.0.0-master。
  # Stamp the version into the binary as release builds do, so /version and kubectl version show v1.37.x, not v0.0.0-master.
  local kube major minor
  kube="$(controlplane_key)"
  kube="${kube#kubernetes-}"
  kube="${kube%%_*}"
  major="${kube#v}"
  major="${major%%.*}"
  minor="${kube#v*.}"
  minor="${minor%%.*}"
  build_one k8s.io/kubernetes/cmd/kube-apiserver "${BUILD_TMP}/kube-apiserver" kube-apiserver \
    "-X k8s.io/component-base/version.gitVersion=${kube} -X k8s.io/component-base/version.gitMajor=${major} -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean"
  rm -rf "${dir}"
  mv "${BUILD_TMP}" "${dir}"
  BUILD_TMP=""
  log "control plane ready in ${dir} ($(seconds_since "${started}") in all)"
}

main "$@"
