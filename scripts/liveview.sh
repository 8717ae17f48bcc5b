#!/usr/bin/env bash
# liveview.sh：不需要叢集，重播一個步驟以 --record 錄下的即時頁面，或把它匯出成一個獨立的 HTML 檔（離線也能開）。
# Replay a live page a step recorded with --record, no cluster needed, or export it as one self-contained HTML file
# (it opens offline too).
#
#   scripts/liveview.sh replay demo.jsonl              serve the page on a free port of 127.0.0.1 until Ctrl-C
#   scripts/liveview.sh replay --ui=127.0.0.1:8080 demo.jsonl
#   scripts/liveview.sh export demo.jsonl demo.html    one file for a blog post or a room without a network
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  local bin
  bin="$(helper_bin liveview)"
  exec "${bin}" "$@"
}

main "$@"
