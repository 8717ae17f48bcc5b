#!/usr/bin/env bash
# test.sh：專案的測試指令。在全新的機器上也會自己準備好一切（包括控制平面），然後檢查格式、
# 靜態分析、shell 腳本，最後連到真實的 kube-apiserver 執行 go test ./...，再跑一輪步驟 05 的基準測試。
# The project's test command. On a fresh machine it sets up everything it needs (the control plane included), then checks
# formatting, static analysis and the shell scripts, and finally runs go test ./... against a real kube-apiserver and one
# round of step 05's benchmark.
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# 傳給 go test 的額外參數，例如 GO_TEST_FLAGS='-run TestDemo -v'。 / Extra go test arguments, for example GO_TEST_FLAGS='-run TestDemo -v'.
GO_TEST_FLAGS="${GO_TEST_FLAGS:-}"

STARTED=${SECONDS}

phase() {
  log "[$(seconds_since "${STARTED}")] $*"
}

# version_at_least 在版本 $1 不低於 $2 時成功（比較 major.minor.patch 的數字）。
# version_at_least succeeds when version $1 is at least $2 (comparing major.minor.patch numbers).
version_at_least() {
  local IFS=.
  # shellcheck disable=SC2206 # 刻意以 . 拆開版本號。 / Splitting the version on dots on purpose.
  local a=(${1%%[!0-9.]*}) b=(${2%%[!0-9.]*}) i
  for i in 0 1 2; do
    ((${a[i]:-0} > ${b[i]:-0})) && return 0
    ((${a[i]:-0} < ${b[i]:-0})) && return 1
  done
  return 0
}

# 1. 工具：Go 的版本要符合 go.mod；shellcheck 來自 Debian 套件，缺少時（以 root 身分）安裝。
# 1. Tools: Go must match go.mod; shellcheck comes from Debian's packages and is installed (as root) when missing.
ensure_tools() {
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  local want have
  want="$(awk '$1 == "go" { print $2; exit }' "${REPO_ROOT}/go.mod")"
  have="$(go env GOVERSION)"
  have="${have#go}"
  version_at_least "${have}" "${want}" || die "go.mod needs Go ${want} or newer; this is Go ${have}"
  if ! command -v shellcheck >/dev/null 2>&1; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
      phase "installing shellcheck from Debian's packages"
      apt-get update -qq >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null
    else
      die "shellcheck is missing: install it (for example: sudo apt-get install shellcheck) and run this again"
    fi
  fi
}

# 2. 靜態檢查：gofmt、go vet、staticcheck、shellcheck、shfmt（版本都已釘選：go.mod 的 tool 指令，以及 Debian 套件）。
# 2. Static checks: gofmt, go vet, staticcheck, shellcheck, shfmt (versions pinned by go.mod's tool directives and Debian).
static_checks() {
  cd "${REPO_ROOT}"
  local unformatted
  unformatted="$(gofmt -l .)"
  [[ -z "${unformatted}" ]] || die "gofmt would change: ${unformatted//$'\n'/ } (run gofmt -w on them)"
  phase "go vet"
  go vet ./...
  phase "staticcheck"
  go tool staticcheck ./...
  phase "shellcheck and shfmt"
  shellcheck -x scripts/*.sh .ci/run
  go tool shfmt -d -i 2 scripts/*.sh .ci/run
}

main() {
  phase "checking tools"
  ensure_tools
  phase "building (or reusing) the local control plane"
  "${REPO_ROOT}/scripts/build-controlplane.sh"
  phase "static checks"
  static_checks
  phase "go test ./... against a real kube-apiserver"
  # shellcheck disable=SC2086 # GO_TEST_FLAGS 是要拆開的參數清單。 / GO_TEST_FLAGS is a list of arguments to split.
  (cd "${REPO_ROOT}" && go test -count=1 ${GO_TEST_FLAGS} ./...)
  # 基準測試不在 go test ./... 裡執行；跑一輪，確認它仍然能量（1000 個 Pod，約 10 秒）。
  # Benchmarks do not run under go test ./...; one round proves this one still measures (1000 pods, about 10 s).
  phase "the step 05 Transform benchmark, one round"
  (cd "${REPO_ROOT}" && go test -count=1 -run '^$' -bench CachedPodHeap -benchtime 1x ./step05-shared-informer)
  phase "all checks passed"
}

main "$@"
