#!/usr/bin/env bash
# build-controlplane.sh：從釘選的原始碼建置本機叢集的執行檔，放進每個使用者的快取：
# etcd、kube-apiserver、kube-controller-manager、kube-scheduler 與 kwok（假節點）。
# Build the local cluster's binaries from pinned sources into the per-user cache:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok (fake nodes).
#
#   scripts/build-controlplane.sh              build if missing, else say where they are
#   scripts/build-controlplane.sh --print-dir  print the binary directory and exit
#   scripts/build-controlplane.sh --platform darwin/arm64 [--print-dir]
#                                              the same for another platform, into its own cache directory
#                                              (scripts/workshop-bundle.sh uses it; the binaries cannot run here)
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 要建置的執行檔；internal/controlplane.Binaries 列的是同一組。 / The binaries to build; internal/controlplane.Binaries lists the same set.
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

# binaries_work 在每個執行檔都在而且能執行時成功。建置成功後留下的 .built 表示已經確認過，
# 之後只看檔案在不在，省下每次執行五個 --version 的時間。
# binaries_work succeeds when every binary exists and runs. The .built stamp a successful build leaves says
# that was checked, so later calls only look for the files and save five --version runs each time.
binaries_work() {
  local dir="$1" bin
  for bin in "${BINARIES[@]}"; do
    [[ -x "${dir}/${bin}" ]] || return 1
    [[ -f "${dir}/.built" ]] || "${dir}/${bin}" --version >/dev/null 2>&1 || return 1
  done
}

# binaries_built_for 是別的平台的 binaries_work：那些執行檔在這裡不能執行，所以改看 go version -m 寫在執行檔裡的平台。
# binaries_built_for is binaries_work for another platform: those binaries cannot run here, so it reads the platform
# go version -m finds written in each of them instead.
binaries_built_for() {
  local dir="$1" platform="$2" bin
  for bin in "${BINARIES[@]}"; do
    [[ -x "${dir}/${bin}" ]] && built_for "${dir}/${bin}" "${platform}" || return 1
  done
}

# 暫存目錄；中斷時由 cleanup 收拾（進行中的 go build 由 go_build 自己收拾）。 / The temporary directory; cleanup tidies it on interruption (go_build tidies a running go build itself).
BUILD_TMP=""

cleanup() {
  [[ -z "${BUILD_TMP}" ]] || rm -rf "${BUILD_TMP}"
}

# build_one 在 scripts/MODULE 裡建置；用法：build_one 模組 輸出 標籤 ldflags 套件…（輸出以 / 結尾時是目錄）。
# build_one builds inside scripts/MODULE; usage: build_one module output label ldflags package… (an output ending in / is a directory).
build_one() {
  local module="$1"
  shift
  go_build "${REPO_ROOT}/scripts/${module}" "$@"
}

main() {
  local dir started=${SECONDS} platform="" print=""
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  while (($# > 0)); do
    case "$1" in
    --print-dir) print=yes ;;
    --platform)
      [[ "${2:-}" =~ ^[a-z0-9]+/[a-z0-9]+$ ]] || die "--platform needs OS/ARCH, such as darwin/arm64"
      platform="$2"
      shift
      ;;
    *) die "unknown argument '$1' (see the top of scripts/build-controlplane.sh)" ;;
    esac
    shift
  done
  [[ -n "${platform}" ]] || platform="$(host_platform)"
  dir="$(controlplane_bin_dir "${platform}")"
  if [[ -n "${print}" ]]; then
    printf '%s\n' "${dir}"
    return
  fi
  local works=binaries_work
  if [[ "${platform}" != "$(host_platform)" ]]; then
    # 為別的平台交叉編譯：只用 Go 自己的程式碼（不用 cgo），在這裡只能檢查執行檔寫著的平台。
    # Cross-compiling for another platform: Go code only (no cgo); here only the platform written in the binaries can be checked.
    works="binaries_built_for"
    export GOOS="${platform%/*}" GOARCH="${platform#*/}" CGO_ENABLED=0
  fi
  if "${works}" "${dir}" "${platform}"; then
    log "control plane for ${platform} already built in ${dir}"
    return
  fi
  [[ -z "${INFORMER_LAB_BIN_DIR:-}" ]] || die "INFORMER_LAB_BIN_DIR=${dir} lacks a working one of: ${BINARIES[*]}"
  mkdir -p "$(dirname "${dir}")"
  # 有 flock（Linux）時，同時只有一個建置：test.sh 在背景建 kind 節點映像檔時也會呼叫這裡。等到的那一個再看一次，
  # 通常就不必建了。鎖在這個行程結束時放開。
  # Where flock exists (Linux), one build at a time: test.sh's background build of the kind node image calls this too.
  # The one that waited looks again, and usually has nothing left to build. The lock is released when this process ends.
  if command -v flock >/dev/null 2>&1; then
    exec 9>"${dir}.lock"
    if ! flock -n 9; then
      log "another build of the control plane for ${platform} is running; waiting for it"
      flock 9
      if "${works}" "${dir}" "${platform}"; then
        log "control plane for ${platform} built by that run, in ${dir}"
        return
      fi
    fi
  fi

  log "building the local control plane for ${platform} into ${dir}"
  log "the first build takes 7 to 13 minutes on 2 cores (see the README); later runs reuse it"
  # 先建到暫存目錄，全部成功才搬過去，中斷的建置不會留下半套。
  # Build into a temporary directory and move it into place only when all succeeded, so an interrupted build leaves no half set.
  trap cleanup EXIT
  BUILD_TMP="$(mktemp -d "${dir}.tmp.XXXXXX")"
  build_one controlplane "${BUILD_TMP}/etcd" etcd "" go.etcd.io/etcd/server/v3
  local stamp
  stamp="$(kube_version_ldflags)"
  build_one controlplane "${BUILD_TMP}/kube-apiserver" kube-apiserver "${stamp}" k8s.io/kubernetes/cmd/kube-apiserver
  # 兩個一起建：共用的套件只編譯一次。 / Built together, so the packages they share compile once.
  build_one controlplane "${BUILD_TMP}/" "kube-controller-manager and kube-scheduler" "${stamp}" \
    k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler
  # kwok 有自己的模組，相依版本跟控制平面的一樣，共用的套件不必再編譯，見 scripts/kwok/go.mod。
  # kwok has a module of its own, with the control plane's dependency versions, so the packages they share need no
  # second compile; see scripts/kwok/go.mod.
  build_one kwok "${BUILD_TMP}/kwok" kwok "" sigs.k8s.io/kwok/cmd/kwok
  "${works}" "${BUILD_TMP}" "${platform}" || die "the binaries just built do not run, or are not for ${platform} (see above)"
  touch "${BUILD_TMP}/.built"
  rm -rf "${dir}"
  mv "${BUILD_TMP}" "${dir}"
  BUILD_TMP=""
  log "control plane ready in ${dir} ($(seconds_since "${started}") in all)"
}

main "$@"
