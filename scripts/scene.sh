#!/usr/bin/env bash
# scene.sh：在另一個終端機製造 Pod 的變化給步驟觀察；只需要 Go，不需要 kubectl。
# Make pod changes for a step to observe, from a second terminal; needs only Go, not kubectl.
#
#   scripts/scene.sh create web-1 app=web     scripts/scene.sh label web-1 tier=front
#   scripts/scene.sh delete web-1             scripts/scene.sh demo   (create, relabel, delete "demo")
#   scripts/scene.sh -h                       every command and flag
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  # 先建置（原始碼沒變就沿用上次的）再從目前目錄執行，讓 --kubeconfig 這類相對路徑照常運作。
  # Build (or reuse the last build when the sources did not change), then run from the current directory, so relative paths such as --kubeconfig work as usual.
  local bin
  bin="$(helper_bin scene)"
  exec "${bin}" "$@"
}

main "$@"
