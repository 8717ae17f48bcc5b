#!/usr/bin/env bash
# workshop-bundle.sh：工作坊離線包（workshop bundle）。講者在有快取的機器上執行一次 build，每個平台得到一個壓縮檔，裡面有這個 commit 的
# repo、為那個平台建好的控制平面與小程式、建好的每個步驟、Go 模組（一個 GOPROXY=file:// 讀得懂的目錄）和每一步
# 示範的匯出頁面。學員解開之後執行 install，它把這些放進腳本本來就用的快取；之後不需要網路。
# The workshop bundle. The presenter runs build once, on a machine with the caches, and gets one archive per platform
# holding the repository at this commit, the control plane and helper commands built for that platform, every step
# built, the Go modules (a directory GOPROXY=file:// reads) and the exported page of every step's demo. A participant
# unpacks it and runs install, which puts them into the caches the scripts already use; no network is needed after that.
#
#   scripts/workshop-bundle.sh build [--out DIR] [--worktree] [PLATFORM...]
#       presenter; PLATFORM is OS/ARCH, by default linux/amd64 linux/arm64 darwin/arm64 darwin/amd64;
#       --worktree packs the working tree as it is (changes too) instead of insisting on a clean commit
#   scripts/workshop-bundle.sh check ARCHIVE
#       list an archive and check that every binary in it is built for its platform (go version -m)
#   tar -xzf informer-walkthrough-workshop-linux-amd64.tar.gz && informer-walkthrough/scripts/workshop-bundle.sh install
#       participant: the one command
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 預設的平台：Linux 與 macOS，各兩種 CPU 架構。 / The default platforms: Linux and macOS, two CPUs each.
DEFAULT_PLATFORMS=(linux/amd64 linux/arm64 darwin/arm64 darwin/amd64)
# 離線包裡的小程式（internal/cmd 底下，腳本以 helper_bin 找它們）。 / The helper commands in the bundle (under internal/cmd; the scripts find them with helper_bin).
HELPERS=(localcluster liveview scene)
# 控制平面的執行檔；build-controlplane.sh 的 BINARIES 是同一組。 / The control plane's binaries; build-controlplane.sh's BINARIES are the same set.
CONTROLPLANE=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

# 暫存目錄；結束時刪掉。 / The temporary directory; removed at exit.
WORK=""
# check 解開執行檔的暫存目錄；結束時也刪掉，包括 check 以 die 結束的時候。
# The temporary directory check unpacks binaries into; removed at exit too, including when check ends in die.
CHECK_DIR=""
# yes：打包工作目錄現在的樣子（build --worktree）。 / yes: pack the working tree as it is (build --worktree).
WORKTREE=""

cleanup() {
  [[ -z "${WORK}" ]] || remove_tree "${WORK}"
  [[ -z "${CHECK_DIR}" ]] || rm -rf "${CHECK_DIR}"
}

# steps 列出每個步驟的目錄名稱（step01-listwatcher …）。 / steps lists every step's directory name (step01-listwatcher …).
steps() {
  (cd "${REPO_ROOT}" && for dir in step0*/; do printf '%s\n' "${dir%/}"; done)
}

# recordings 列出每一步示範的錄製檔（相對於 repo）。 / recordings lists every step's demo recordings (relative to the repository).
recordings() {
  (cd "${REPO_ROOT}" && printf '%s\n' step0*/testdata/*.recording.jsonl)
}

# page_name 把錄製檔的路徑變成頁面的檔名：step04-controller/testdata/demo.recording.jsonl → step04-controller-demo.html。
# page_name turns a recording's path into its page's name: step04-controller/testdata/demo.recording.jsonl → step04-controller-demo.html.
page_name() {
  local base
  base="$(basename "$1" .recording.jsonl)"
  printf '%s-%s.html\n' "${1%%/*}" "${base}"
}

# MODULES 是學員需要的套件：每個套件、它們的測試，以及 go.mod 的 tool（go list 載入它們時會抓齊需要的模組）。
# MODULES are the packages a participant needs: every package, their tests and go.mod's tools (go list fetches the
# modules they need while loading them).
MODULES=(-deps -test ./... tool)

# shared_parts 寫出各平台共用的部分到 $1/informer-walkthrough/.workshop：goproxy（MODULES 需要的模組，取自講者的
# 模組快取，缺的才去 GOPROXY 拿；go.sum 不能少任何一筆，也不會被改）與 pages（每個錄製檔匯出的頁面）。
# shared_parts writes what every platform shares into $1/informer-walkthrough/.workshop: goproxy (the modules MODULES
# need, taken from the presenter's module cache, fetching from GOPROXY only what it lacks; go.sum must have every one
# and is left as it is) and pages (the page exported from every recording).
shared_parts() {
  local into="$1/informer-walkthrough/.workshop" started=${SECONDS} rec liveview proxy
  mkdir -p "${into}/pages"
  log "collecting the Go modules the steps, their tests and the tools need, from this machine's module cache where it can"
  proxy="file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)"
  local said
  said="$(cd "${REPO_ROOT}" && GOMODCACHE="$1/modcache" GOFLAGS="-modcacherw -mod=readonly" GOPROXY="${proxy}" \
    go list "${MODULES[@]}" 2>&1 >/dev/null)" || {
    printf '%s\n' "${said}" | grep -v '^go: downloading ' >&2
    die "collecting the modules failed (above)"
  }
  mv "$1/modcache/cache/download" "${into}/goproxy"
  liveview="$(helper_bin liveview)"
  for rec in $(recordings); do
    "${liveview}" export "${REPO_ROOT}/${rec}" "${into}/pages/$(page_name "${rec}")" >/dev/null
  done
  log "modules ($(du -sh "${into}/goproxy" | cut -f 1)) and $(recordings | grep -c .) pages ready after $(seconds_since "${started}")"
}

# go_build_for 建置一個套件給某個平台：不用 cgo（執行檔不仰賴學員機器上的 C 函式庫）、-trimpath（不帶講者機器上的路徑）。
# 用法：go_build_for 平台 輸出 套件。
# go_build_for builds one package for a platform: without cgo (the binary needs no C library on the participant's
# machine) and with -trimpath (no paths from the presenter's machine). Usage: go_build_for platform output package.
go_build_for() {
  (cd "${REPO_ROOT}" && GOOS="${1%/*}" GOARCH="${1#*/}" CGO_ENABLED=0 go build -trimpath -o "$2" "$3")
}

# platform_parts 寫出一個平台的部分到 $2/informer-walkthrough：repo（git archive）、.workshop 底下的 manifest、
# controlplane（指向快取的 symlink，打包時跟著它）、helpers，以及 bin/ 底下建好的每個步驟。
# platform_parts writes one platform's part into $2/informer-walkthrough: the repository (git archive), and under
# .workshop the manifest, controlplane (a symlink to the cache, followed when archiving) and helpers, and every step
# built under bin/.
platform_parts() {
  local platform="$1" root="$2/informer-walkthrough" started=${SECONDS} name cpdir
  mkdir -p "${root}"
  if [[ -n "${WORKTREE}" ]]; then
    # 工作目錄裡 git 認得的檔案（追蹤的，加上沒被忽略的新檔），照現在的內容。
    # The files git knows in the working tree (tracked, plus new ones not ignored), as they are now.
    (cd "${REPO_ROOT}" && git ls-files -z --cached --others --exclude-standard | tar --null -cf - -T -) | tar -x -C "${root}"
  else
    git -C "${REPO_ROOT}" archive --format=tar HEAD | tar -x -C "${root}"
  fi
  mkdir -p "${root}/.workshop/helpers" "${root}/bin"
  "${REPO_ROOT}/scripts/build-controlplane.sh" --platform "${platform}"
  cpdir="$("${REPO_ROOT}/scripts/build-controlplane.sh" --platform "${platform}" --print-dir)"
  ln -s "${cpdir}" "${root}/.workshop/controlplane"
  log "building the helper commands and every step for ${platform}"
  for name in "${HELPERS[@]}"; do
    go_build_for "${platform}" "${root}/.workshop/helpers/${name}" "./internal/cmd/${name}"
  done
  for name in $(steps); do
    go_build_for "${platform}" "${root}/bin/${name}" "./${name}"
  done
  {
    printf 'commit=%s%s\n' "$(git -C "${REPO_ROOT}" rev-parse HEAD)" "${WORKTREE:+ and the working tree}"
    printf 'platform=%s\n' "${platform}"
    printf 'go=%s\n' "$(go env GOVERSION)"
  } >"${root}/.workshop/manifest"
  log "${platform}: built after $(seconds_since "${started}")"
}

build() {
  local out="." platforms=() platform archive
  while (($# > 0)); do
    case "$1" in
    --out)
      [[ -n "${2:-}" ]] || die "--out needs a directory"
      out="$2"
      shift
      ;;
    --worktree) WORKTREE=yes ;;
    */*) platforms+=("$1") ;;
    *) die "unknown argument '$1': build takes --out DIR and platforms such as linux/amd64" ;;
    esac
    shift
  done
  ((${#platforms[@]} > 0)) || platforms=("${DEFAULT_PLATFORMS[@]}")
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  # 離線包裝的是一個 commit；工作目錄有改動時，建出來的東西會跟裝進去的原始碼不一致。
  # A bundle holds one commit; with changes in the working tree, what is built would not match the sources it holds.
  [[ -n "${WORKTREE}" || -z "$(git -C "${REPO_ROOT}" status --porcelain)" ]] ||
    die "the working tree has changes, and a bundle holds a commit: commit or stash them (or pass --worktree), then run this again"
  mkdir -p "${out}"
  out="$(cd "${out}" && pwd -P)"
  trap cleanup EXIT
  WORK="$(mktemp -d)"
  shared_parts "${WORK}/shared"
  for platform in "${platforms[@]}"; do
    [[ "${platform}" =~ ^[a-z0-9]+/[a-z0-9]+$ ]] || die "a platform is OS/ARCH, such as darwin/arm64, not '${platform}'"
    platform_parts "${platform}" "${WORK}/${platform/\//-}"
    archive="${out}/informer-walkthrough-workshop-${platform/\//-}.tar.gz"
    log "writing ${archive}"
    # -h 跟著 controlplane 這個 symlink 打包它指向的執行檔（repo 本身沒有 symlink）。gzip -1：內容多半是執行檔與
    # 已壓縮的模組 zip，較高的等級只多花時間。
    # -h follows the controlplane symlink and packs the binaries it points at (the repository itself has no symlinks).
    # gzip -1: the content is mostly binaries and already compressed module zips; a higher level only costs time.
    tar -h -cf - -C "${WORK}/${platform/\//-}" informer-walkthrough \
      -C "${WORK}/shared" informer-walkthrough/.workshop/goproxy informer-walkthrough/.workshop/pages |
      gzip -1 >"${archive}.tmp"
    mv "${archive}.tmp" "${archive}"
    rm -rf "${WORK:?}/${platform/\//-}"
    check "${archive}"
  done
}

# check 列出壓縮檔，確認該有的都在，並以 go version -m 確認每個執行檔都是為 manifest 說的平台建的。
# check lists an archive, makes sure everything is there, and confirms with go version -m that every binary is built
# for the platform its manifest names.
check() {
  local archive="$1" list platform name want=() missing=() wrong=()
  [[ -f "${archive}" ]] || die "no such archive: ${archive}"
  list="$(tar -tzf "${archive}")" || die "${archive} is not a readable .tar.gz"
  # 不用 RETURN trap：die 直接結束行程，RETURN trap 不會執行，解開的執行檔（真正的壓縮檔約 900 MB）就留在 TMPDIR 裡。
  # Not a RETURN trap: die ends the process, the RETURN trap never runs, and the unpacked binaries (about 900 MB from a
  # real archive) would stay in TMPDIR.
  trap cleanup EXIT
  CHECK_DIR="$(mktemp -d)"
  local dir="${CHECK_DIR}"
  tar -xzf "${archive}" -C "${dir}" informer-walkthrough/.workshop/manifest
  platform="$(sed -n 's/^platform=//p' "${dir}/informer-walkthrough/.workshop/manifest")"
  for name in "${CONTROLPLANE[@]}"; do want+=(".workshop/controlplane/${name}"); done
  for name in "${HELPERS[@]}"; do want+=(".workshop/helpers/${name}"); done
  for name in $(steps); do want+=("bin/${name}"); done
  for name in "${want[@]}"; do
    grep -qxF "informer-walkthrough/${name}" <<<"${list}" || missing+=("${name}")
  done
  for name in $(recordings); do
    grep -qxF "informer-walkthrough/.workshop/pages/$(page_name "${name}")" <<<"${list}" || missing+=("pages/$(page_name "${name}")")
  done
  grep -q '^informer-walkthrough/.workshop/goproxy/.*\.zip$' <<<"${list}" || missing+=("the module zips under .workshop/goproxy")
  ((${#missing[@]} == 0)) || die "${archive} lacks: ${missing[*]}"
  # shellcheck disable=SC2046 # 檔名沒有空白。 / The names have no spaces.
  tar -xzf "${archive}" -C "${dir}" $(printf 'informer-walkthrough/%s ' "${want[@]}")
  for name in "${want[@]}"; do
    built_for "${dir}/informer-walkthrough/${name}" "${platform}" || wrong+=("${name}")
  done
  ((${#wrong[@]} == 0)) || die "${archive}: not built for ${platform}: ${wrong[*]}"
  # 大小以十進位的 MB 表示（10^6 位元組），工作坊指南引用的就是這個數字；wc -c 在 Linux 與 macOS 上都有。
  # The size in decimal MB (10^6 bytes), the figure the workshop guide quotes; wc -c works on Linux and macOS alike.
  log "${archive}: ${platform}, $(grep -c . <<<"${list}") files, $(awk -v bytes="$(wc -c <"${archive}")" 'BEGIN { printf "%.0f MB", bytes / 1e6 }'); all ${#want[@]} binaries are built for ${platform}"
  rm -rf "${CHECK_DIR}"
  CHECK_DIR=""
}

# install 在解開的離線包裡執行：把控制平面、小程式與模組放進腳本本來就用的快取，頁面放到 pages/。
# install runs inside an unpacked bundle: it puts the control plane, the helper commands and the modules into the
# caches the scripts already use, and the pages into pages/.
install() {
  local from="${REPO_ROOT}/.workshop" platform here cpdir key bindir name started=${SECONDS}
  [[ -f "${from}/manifest" ]] ||
    die "no ${from}/manifest: install runs inside an unpacked workshop bundle (see docs/en/workshop.md)"
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  platform="$(sed -n 's/^platform=//p' "${from}/manifest")"
  here="$(host_platform)"
  [[ "${platform}" == "${here}" ]] || die "this bundle is for ${platform}, and this machine is ${here}: ask for the ${here} one"

  cpdir="$(controlplane_bin_dir "${here}")"
  rm -rf "${cpdir}"
  mkdir -p "$(dirname "${cpdir}")"
  mv "${from}/controlplane" "${cpdir}"
  log "control plane: ${cpdir}"

  # 小程式以 helper_key 命名，跟 helper_bin 自己建出來的一樣；key 算的是這裡的原始碼與 Go。
  # The helpers are named by helper_key, as helper_bin's own builds are; the key covers the sources and Go here.
  key="$(helper_key)"
  bindir="${XDG_CACHE_HOME:-$HOME/.cache}/informer-walkthrough/bin"
  mkdir -p "${bindir}"
  for name in "${HELPERS[@]}"; do
    mv "${from}/helpers/${name}" "${bindir}/${name}-${key}"
  done
  log "helper commands: ${bindir}"

  # 只從離線包拿模組（GOPROXY=file://；GOSUMDB=off，每個模組仍照 go.sum 驗證），不連網路，也不改 go.sum。
  # Modules come from the bundle only (GOPROXY=file://; GOSUMDB=off, each is still checked against go.sum): no network,
  # and go.sum stays as it is.
  # go 的「downloading」一行一個模組，近百行；只在失敗時印出來。 / Go's "downloading" lines, one per module and nearly a hundred, are shown only on failure.
  local said
  said="$(cd "${REPO_ROOT}" && GOPROXY="file://${from}/goproxy" GOSUMDB=off GOTOOLCHAIN=local GOFLAGS=-mod=readonly \
    go list "${MODULES[@]}" 2>&1 >/dev/null)" || {
    printf '%s\n' "${said}" | grep -v '^go: downloading ' >&2
    die "loading the modules from the bundle failed (above); go.mod needs Go $(awk '$1 == "go" { print $2 }' "${REPO_ROOT}/go.mod") or newer"
  }
  log "Go modules: $(go env GOMODCACHE)"

  rm -rf "${REPO_ROOT}/pages"
  mv "${from}/pages" "${REPO_ROOT}/pages"
  rm -rf "${from}"
  log "installed in $(seconds_since "${started}"); pages of every step's demo: ${REPO_ROOT}/pages"
  log "next: scripts/cluster-up.sh, then bin/step01-listwatcher (step 01 built for you; go run ./step01-listwatcher builds it again)"
}

main() {
  case "${1:-}" in
  build)
    shift
    build "$@"
    ;;
  check)
    [[ $# == 2 ]] || die "usage: scripts/workshop-bundle.sh check ARCHIVE"
    check "$2"
    ;;
  install)
    [[ $# == 1 ]] || die "install takes no arguments: run it inside the unpacked bundle"
    install
    ;;
  *) die "usage: scripts/workshop-bundle.sh build [--out DIR] [OS/ARCH...] | check ARCHIVE | install" ;;
  esac
}

main "$@"
