#!/usr/bin/env bash
# screenshots.sh：重拍文件裡即時頁面的截圖（docs/images/live-*.png）。它重播 repo 裡的錄製檔，不需要叢集；
# 哪一份錄製檔、停在哪一刻，寫在 internal/liveview/screenshots_test.go。中文的截圖需要 CJK 字型：以 root 執行時，
# 缺少的 chromium 與 fonts-noto-cjk 會從 Debian 的套件安裝。
# Retake the docs' screenshots of the live page (docs/images/live-*.png). It replays the repository's recordings, no
# cluster needed; which recording and which moment is in internal/liveview/screenshots_test.go. The zh-TW screenshot
# needs CJK fonts: run as root, it installs a missing chromium and fonts-noto-cjk from Debian's packages.
#
#   scripts/ci/screenshots.sh
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

main() {
  [[ $# -eq 0 ]] || die "usage: scripts/ci/screenshots.sh (no arguments; the shots are listed in internal/liveview/screenshots_test.go)"
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  local missing=()
  [[ -n "${CHROMIUM:-}" ]] || command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  fc-list 2>/dev/null | grep -q 'Noto Sans CJK' || missing+=(fonts-noto-cjk)
  if ((${#missing[@]} > 0)); then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
      log "installing ${missing[*]} from Debian's packages"
      apt-get update -qq >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
      die "${missing[*]} missing: install (for example: sudo apt-get install ${missing[*]}) and run this again"
    fi
  fi
  CHROMIUM="${CHROMIUM:-$(command -v chromium)}"
  export CHROMIUM
  cd "${REPO_ROOT}"
  go test -count=1 -tags screenshots -run '^TestScreenshots$' ./internal/liveview
  log "wrote $(find docs/images -name 'live-*.png' | wc -l) screenshots in docs/images"
}

main "$@"
