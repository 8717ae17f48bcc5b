#!/usr/bin/env bash
# soak.sh：把整套 go test ./...（連到真實的 kube-apiserver）連續跑 N 次，印出每次失敗的套件與測試名稱。
# 一個偶爾才失敗的測試是 bug，不是運氣不好：這個腳本把它找出來。
# Run the whole go test ./... suite (against a real kube-apiserver) N times in a row and print every failure with its
# package and test name. A test that fails now and then is a bug, not bad luck: this script finds it.
#
#   scripts/soak.sh 5                      five rounds; exit 1 if any test failed in any round
#   GO_TEST_FLAGS='-run TestDemo' scripts/soak.sh 10
#
# 失敗那幾次的完整輸出（go test -json）留在 KEEP 指定的資料夾，結尾會印出路徑；全部通過就不留。
# The whole output (go test -json) of each failing round stays in the folder KEEP names, and the last line gives its path;
# when every round passes nothing is kept.
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# 傳給 go test 的額外參數。 / Extra go test arguments.
GO_TEST_FLAGS="${GO_TEST_FLAGS:-}"
# 要跑的套件。 / The packages to run.
PACKAGES="${PACKAGES:-./...}"
# 1：每一輪都在 race detector 底下跑（步驟以執行檔跑時也帶著它）；0：一般地跑（預設）。
# 1: every round runs under the race detector (a step run as a binary has it too); 0: a plain run (the default).
RACE="${RACE:-0}"
# 失敗那幾次的輸出放在這裡。 / Where the failing rounds' output goes.
KEEP="${KEEP:-${TMPDIR:-/tmp}/soak-$(date +%Y%m%d-%H%M%S)}"

LOGS=""

cleanup() {
  [[ -z "${LOGS}" ]] || rm -rf "${LOGS}"
}

# failures 從 go test -json 的輸出印出每個失敗的測試（套件 測試），沒有測試名稱的失敗是套件本身（例如 TestMain）。
# failures prints every failed test from go test -json output (package test); a failure without a test name is the package
# itself (TestMain, say).
failures() {
  grep '"Action":"fail"' "$1" |
    sed -E 's/.*"Package":"([^"]*)"(,"Test":"([^"]*)")?.*/\1 \3/' |
    sed -E 's|^github.com/informer-walkthrough/informer-walkthrough/||' |
    awk '$2 != "" { named[$1] = 1; print; next } { bare[$1] = 1 } END { for (p in bare) if (!named[p]) print p " (the package itself)" }' || true
}

main() {
  local rounds="${1:-}" round failed=0 list started=${SECONDS} race=""
  [[ "${rounds}" =~ ^[1-9][0-9]*$ && $# == 1 ]] || die "usage: scripts/soak.sh N (how many rounds of go test ${PACKAGES})"
  case "${RACE}" in
  0) ;;
  1) race="-race" ;;
  *) die "RACE must be 0 or 1, not '${RACE}'" ;;
  esac
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  "${REPO_ROOT}/scripts/build-controlplane.sh"
  trap cleanup EXIT
  LOGS="$(mktemp -d)"
  for round in $(seq "${rounds}"); do
    log "round ${round} of ${rounds}: go test -count=1 ${race:+${race} }${PACKAGES} ($(seconds_since "${started}") so far)"
    # shellcheck disable=SC2086 # 要拆開的參數清單。 / Lists of arguments to split.
    (cd "${REPO_ROOT}" && go test -json -count=1 ${race} ${GO_TEST_FLAGS} ${PACKAGES}) >"${LOGS}/${round}.json" 2>&1 || true
    list="$(failures "${LOGS}/${round}.json")"
    if [[ -n "${list}" ]]; then
      failed=$((failed + 1))
      printf '%s\n' "${list}" | sed "s/^/round ${round}: FAIL /"
      mkdir -p "${KEEP}"
      cp "${LOGS}/${round}.json" "${KEEP}/round${round}.json"
    elif ! grep -q '"Action":"pass"' "${LOGS}/${round}.json"; then
      tail -n 20 "${LOGS}/${round}.json" >&2
      die "round ${round}: go test ran no test (its last lines are above)"
    fi
  done
  if ((failed > 0)); then
    die "${failed} of ${rounds} rounds had failures (listed above), $(seconds_since "${started}") in all; their go test -json output is in ${KEEP}"
  fi
  log "${rounds} of ${rounds} rounds passed, $(seconds_since "${started}") in all"
}

main "$@"
