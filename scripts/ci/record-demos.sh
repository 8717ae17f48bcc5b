#!/usr/bin/env bash
# record-demos.sh：重新錄製 repo 裡每一步的 demo（stepNN-*/testdata/*.recording.jsonl 與 *.final.golden）。
# 錄製檔由步驟的測試在擬真的本機叢集上、開著即時頁面錄下（go test -update）；同一個 -update 也會重寫文字的
# golden file，所以最後檢查它們沒有變：步驟的輸出若真的變了，照 CONTRIBUTING 的流程另外處理。
# Record every step's demo in the repository again (stepNN-*/testdata/*.recording.jsonl and *.final.golden). The
# steps' tests record them on the realistic local cluster with the live page on (go test -update); the same -update
# rewrites the text golden files too, so this checks at the end that they did not change: if a step's output really
# changed, follow CONTRIBUTING's steps for that instead.
#
#   scripts/ci/record-demos.sh
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

main() {
  [[ $# -eq 0 ]] || die "usage: scripts/ci/record-demos.sh (no arguments)"
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  cd "${REPO_ROOT}"
  log "recording the demos (the tests that write testdata/*.recording.jsonl)"
  go test -count=1 -run '^(TestDemo|TestSlowHandlerDoesNotHoldBackTheOther)$' ./step0*/ -update
  local changed
  changed="$(git status --porcelain -- 'step*/testdata/*.golden' | grep -v '\.final\.golden$' || true)"
  [[ -z "${changed}" ]] || die "the text golden files changed too (${changed//$'\n'/; }): a step's output changed; review it as CONTRIBUTING says, or git checkout them"
  log "recorded; git status shows which recordings changed"
}

main "$@"
