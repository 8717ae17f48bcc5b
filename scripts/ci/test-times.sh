#!/usr/bin/env bash
# test-times.sh：跑一次 go test（-json），說出時間花在哪裡：每個套件的測試執行檔跑了多久，以及最慢的頂層測試。
# 失敗的測試的輸出照樣印出，結束碼跟 go test 的一樣。README 的測試時間由它量出。
# Run go test once (with -json) and say where the time went: how long each package's test binary ran, and the slowest
# top-level tests. Failed tests' output is printed as usual, and the exit status is go test's. The README's test figures
# come from it.
#
#   scripts/ci/test-times.sh                          go test -count=1 ./...
#   scripts/ci/test-times.sh -race ./step0*/          any go test arguments (-count=1 and -json are added)
#   TOP=30 scripts/ci/test-times.sh                   list the 30 slowest tests (default 15)
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# 最慢的頂層測試要列出幾個。 / How many of the slowest top-level tests to list.
TOP="${TOP:-15}"

main() {
  [[ "${TOP}" =~ ^[0-9]+$ ]] || die "TOP must be a number, not '${TOP}'"
  cd "${REPO_ROOT}"
  ((${#} > 0)) || set -- ./...
  local started=${SECONDS} status=0
  # go test 失敗時，摘要照樣印完，再以它的結束碼結束（pipefail）。 / When go test fails, the summary is still printed, then its status is the exit status (pipefail).
  go test -count=1 -json "$@" | go run ./internal/cmd/testtimes -top "${TOP}" || status=$?
  log "go test took $(seconds_since "${started}") in all, building included"
  return "${status}"
}

main "$@"
