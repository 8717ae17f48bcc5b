#!/usr/bin/env bash
# record-demos.sh：重新錄製 repo 裡每一步的 demo（stepNN-*/testdata/*.recording.jsonl 與 *.final.golden）。
# 錄製檔由步驟的 TestDemo… 測試在擬真的本機叢集上、開著即時頁面錄下（go test -update）。同一個 -update 也會重寫
# 文字的 golden file 與頁面最後的狀態（*.final.golden），所以最後檢查兩者：文字變了就停（步驟的輸出真的變了，
# 照 CONTRIBUTING 的流程另外處理）；頁面最後的狀態變了，印出差異並以非零結束，除非加上 --accept 說這個改變是刻意的。
# 每份錄製檔旁邊的導覽（*.tour.json）指向錄製檔裡的 seq：重新錄製之後要對照，對不上的一站會被點名。
# Record every step's demo in the repository again (stepNN-*/testdata/*.recording.jsonl and *.final.golden). The
# steps' TestDemo… tests record them on the realistic local cluster with the live page on (go test -update). The same
# -update rewrites the text golden files and the page's final state (*.final.golden) too, so both are checked at the
# end: changed text stops here (a step's output really changed: follow CONTRIBUTING's steps for that); a changed final
# state of the page is shown as a diff and exits non-zero, unless --accept says the change is intended. The tour beside
# each recording (*.tour.json) points at seqs in it: after recording again it is checked, and a stop that no longer
# matches is named.
#
#   scripts/ci/record-demos.sh            record; fail on any change to a page's final state
#   scripts/ci/record-demos.sh --accept   record; accept the page's new final states (review them in git diff)
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

usage="usage: scripts/ci/record-demos.sh [--accept]"

main() {
  local accept=""
  case "$#:${1:-}" in
  0:) ;;
  1:--accept) accept=yes ;;
  1:-h | 1:--help)
    echo "${usage}"
    return
    ;;
  *) die "${usage}" ;;
  esac
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  cd "${REPO_ROOT}"
  log "recording the demos (every test named TestDemo…, which write testdata/*.recording.jsonl)"
  go test -count=1 -run '^TestDemo' ./step0*/ -update
  local changed
  changed="$(git status --porcelain -- 'step*/testdata/*.golden' | grep -v '\.final\.golden$' || true)"
  [[ -z "${changed}" ]] || die "the text golden files changed too (${changed//$'\n'/; }): a step's output changed; review it as CONTRIBUTING says, or git checkout them"
  local finals
  finals="$(git status --porcelain -- 'step*/testdata/*.final.golden' | awk '{print $2}')"
  if [[ -n "${finals}" ]]; then
    git --no-pager diff -- 'step*/testdata/*.final.golden'
    if [[ -z "${accept}" ]]; then
      die "the page's final state changed in: ${finals//$'\n'/ } (the diff is above); if that is intended, run again with --accept; if not, the page or a step's events are wrong"
    fi
    log "accepted the page's new final state in: ${finals//$'\n'/ }"
  fi
  log "checking the tours against the new recordings"
  go test -count=1 -run '^TestTours$' ./internal/liveview ||
    die "a tour no longer matches its recording: move the stops it names (each stop gives the event it expected)"
  log "recorded; git status shows which recordings changed"
}

main "$@"
