#!/usr/bin/env bash
# bench-cold-compile.sh：量 full 組的幾次編譯在建置快取是空的時候各花多少 CPU，README 測試一節的數字從這裡來。
# 每一項都用自己的空建置快取（暫存目錄，結束時刪掉）：先編譯它要的標準函式庫（另外印出），再量那次編譯本身。
# 每一項要一到三分鐘，機器要閒著，量出來才準。
#   darwin        為 darwin/arm64 交叉編譯每個套件，用 Go 的預設（test.sh 以前的做法）
#   darwin-noopt  一樣，但不做最佳化、不寫除錯資訊（-N -l -dwarf=false，test.sh 現在的做法）
#   bundle        不用 cgo、-trimpath 編譯每個套件：工作坊離線包的設定，也是 full 組現在的設定
#   kwok          控制平面會編譯到的套件先編譯好之後，kwok 自己還要編譯的部分
# 用法：scripts/ci/bench-cold-compile.sh [項目 ...]（預設全部）
#
# bench-cold-compile.sh: what some of the full tier's compiles cost in CPU with an empty build cache; the README's Tests
# section takes its figures from here. Each item gets an empty build cache of its own (a temporary directory, removed at
# the end): the standard library it needs is compiled first (and printed apart), then the compile itself is measured.
# Each item takes one to three minutes; measure on an idle machine.
#   darwin        cross-compile every package for darwin/arm64 with Go's defaults (what test.sh did before)
#   darwin-noopt  the same without optimisation or debug information (-N -l -dwarf=false, what test.sh does now)
#   bundle        compile every package without cgo and with -trimpath: the workshop bundle's settings, and now the
#                 full tier's
#   kwok          what kwok still compiles once the packages the control plane compiles are in the cache
# Usage: scripts/ci/bench-cold-compile.sh [item ...] (all by default)
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

WORK=""
cleanup() {
  [[ -z "${WORK}" ]] || rm -rf "${WORK}"
}

# measure 印出一個指令用掉的 CPU 秒數（user 加 sys，包括子行程）與經過的時間。 / measure prints the CPU-seconds (user plus sys, children included) and the wall time a command took.
measure() {
  local label="$1"
  shift
  local TIMEFORMAT="%R %U %S" times
  times="$({ time "$@" >/dev/null 2>"${WORK}/err"; } 2>&1)" || {
    tail -n 20 "${WORK}/err" >&2
    die "${label}: $* failed (its last lines are above)"
  }
  awk -v label="${label}" '{ printf "%-34s %6.0f CPU-s  %5.0f s wall\n", label, $2 + $3, $1 }' <<<"${times}"
}

# fresh_cache 給接下來的指令一個空的建置快取。 / fresh_cache gives the commands that follow an empty build cache.
fresh_cache() {
  export GOCACHE="${WORK}/cache-$1"
  mkdir -p "${GOCACHE}"
}

item() {
  cd "${REPO_ROOT}"
  case "$1" in
  darwin)
    fresh_cache darwin
    measure "darwin: standard library" env GOOS=darwin GOARCH=arm64 go build std
    measure "darwin: every package" env GOOS=darwin GOARCH=arm64 go build ./...
    ;;
  darwin-noopt)
    fresh_cache darwin-noopt
    measure "darwin-noopt: standard library" env GOOS=darwin GOARCH=arm64 go build -gcflags='all=-N -l -dwarf=false' std
    measure "darwin-noopt: every package" env GOOS=darwin GOARCH=arm64 go build -gcflags='all=-N -l -dwarf=false' ./...
    ;;
  bundle)
    fresh_cache bundle
    measure "bundle: standard library" env CGO_ENABLED=0 go build -trimpath std
    measure "bundle: every package" env CGO_ENABLED=0 go build -trimpath ./...
    ;;
  kwok)
    fresh_cache kwok
    local shared
    # kwok 與控制平面都用到的套件。 / The packages kwok and the control plane both use.
    shared="$(comm -12 <(cd scripts/kwok && go list -deps sigs.k8s.io/kwok/cmd/kwok | sort) \
      <(cd scripts/controlplane && go list -deps k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
        k8s.io/kubernetes/cmd/kube-scheduler go.etcd.io/etcd/server/v3 | sort))"
    measure "kwok: what the control plane shares" sh -c "cd scripts/controlplane && go build ${shared//$'\n'/ }"
    measure "kwok: the rest" sh -c "cd scripts/kwok && go build -o '${WORK}/kwok' sigs.k8s.io/kwok/cmd/kwok"
    ;;
  *) die "unknown item '$1' (items: darwin darwin-noopt bundle kwok)" ;;
  esac
}

main() {
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  local items=("$@")
  ((${#items[@]} > 0)) || items=(darwin darwin-noopt bundle kwok)
  for i in "${items[@]}"; do
    [[ "${i}" =~ ^(darwin|darwin-noopt|bundle|kwok)$ ]] || die "unknown item '${i}' (items: darwin darwin-noopt bundle kwok)"
  done
  trap cleanup EXIT
  WORK="$(mktemp -d)"
  for i in "${items[@]}"; do
    item "${i}"
  done
}

main "$@"
