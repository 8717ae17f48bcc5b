#!/usr/bin/env bash
# test.sh：專案的測試指令。在全新的機器上也會自己準備好一切（包括控制平面），然後檢查格式、
# 靜態分析、shell 腳本，連到真實的 kube-apiserver 執行 go test ./...（課程在 race detector 底下），跑一輪步驟 05 的基準測試，
# 建一個工作坊離線包並從全新的家目錄離線跑一次（TEST_BUNDLE=no 可以略過），
# 最後在真的 kind 叢集上跑導覽與每一步（需要 Docker；TEST_KIND=no 可以略過，最後一行會說）。
# The project's test command. On a fresh machine it sets up everything it needs (the control plane included), then checks
# formatting, static analysis and the shell scripts, runs go test ./... against a real kube-apiserver (the lessons under
# the race detector) and one round of step 05's benchmark, builds a workshop bundle and runs it once offline from a fresh
# home (TEST_BUNDLE=no leaves that out), and finally runs the walkthrough and every step on a real kind cluster (needs
# Docker; TEST_KIND=no leaves that out, and the last line says so).
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# 傳給 go test 的額外參數，例如 GO_TEST_FLAGS='-run TestDemo -v'。 / Extra go test arguments, for example GO_TEST_FLAGS='-run TestDemo -v'.
GO_TEST_FLAGS="${GO_TEST_FLAGS:-}"
# yes：在 kind 叢集上也跑導覽與每個步驟（預設）；no：不跑，最後一行會這樣說。
# yes: also run the walkthrough and every step on a kind cluster (the default); no: leave them out, and the last line says so.
TEST_KIND="${TEST_KIND:-yes}"
# yes：為這台機器建一個工作坊離線包（從工作目錄），在全新的家目錄、沒有網路下，從解開到步驟 01 的第一個事件跑一次
# （預設）；no：不跑。
# yes: build a workshop bundle for this machine (from the working tree) and run it once, from unpacking to step 01's
# first event, in a fresh home with no network (the default); no: leave it out.
TEST_BUNDLE="${TEST_BUNDLE:-yes}"
# yes：internal、docs 與每一步的測試在 race detector 底下跑（預設；以執行檔跑的步驟也帶著它，見 internal/testenv 的 Build），
# 取代一般的執行，不是多跑一次；no：全部一般地跑，快一些。
# yes: the tests of internal, docs and every step run under the race detector (the default; a step run as a binary has
# it too, see internal/testenv's Build), instead of a plain run, not as well as one; no: everything runs plain, faster.
RACE="${RACE:-yes}"

# 這次執行是否啟動了 Docker daemon（由 scripts/ci/docker.sh 啟動）；是的話，結束時停掉。 / Whether this run started a Docker daemon (through scripts/ci/docker.sh), to stop it at the end.
STARTED_DOCKER=""

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

# 1. 工具：Go 的版本要符合 go.mod；shellcheck 與 chromium（即時頁面的測試驅動的真瀏覽器）來自 Debian 套件，
#    缺少時（以 root 身分）安裝。CHROMIUM 指向那個瀏覽器：有了它，頁面的測試找不到瀏覽器時會失敗，不會略過。
# 1. Tools: Go must match go.mod; shellcheck and chromium (the real browser the live page's tests drive) come from
#    Debian's packages and are installed (as root) when missing. CHROMIUM points at that browser: with it set, a page
#    test that cannot start it fails instead of skipping.
ensure_tools() {
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  local want have
  want="$(awk '$1 == "go" { print $2; exit }' "${REPO_ROOT}/go.mod")"
  have="$(go env GOVERSION)"
  have="${have#go}"
  version_at_least "${have}" "${want}" || die "go.mod needs Go ${want} or newer; this is Go ${have}"
  local missing=()
  command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
  [[ -n "${CHROMIUM:-}" ]] || command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  if ((${#missing[@]} > 0)); then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
      phase "installing ${missing[*]} from Debian's packages"
      apt-get update -qq >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
      die "${missing[*]} missing: install (for example: sudo apt-get install ${missing[*]}) and run this again"
    fi
  fi
  CHROMIUM="${CHROMIUM:-$(command -v chromium)}"
  [[ -x "${CHROMIUM}" ]] || die "CHROMIUM=${CHROMIUM} is not an executable browser"
  export CHROMIUM
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
  # macOS：每個套件（步驟與輔助指令）都要能為 darwin/arm64 編譯；之後的執行從快取拿，只要幾秒。
  # macOS: every package (the steps and the helper commands) must build for darwin/arm64; later runs take it from
  # the cache in seconds.
  phase "cross-compiling every package for darwin/arm64 (macOS on Apple silicon)"
  GOOS=darwin GOARCH=arm64 go build -o /dev/null ./...
  phase "staticcheck"
  # 產生的程式碼（步驟 06 的 generated/）不在這裡檢查：它用了 code-generator v0.37.2 自己寫出的已棄用欄位，
  # 而它的內容由 codegen_test.go 守著：一個位元組都不能跟產生器寫出的不同。
  # Generated code (step 06's generated/) is left out here: it uses deprecated fields code-generator v0.37.2 itself
  # writes, and codegen_test.go holds its content to be exactly what the generators write.
  local packages
  packages="$(go list ./... | grep -v '/step06-custom-resource/generated/')"
  # shellcheck disable=SC2086 # 套件清單要拆開。 / The package list is to be split.
  go tool staticcheck ${packages}
  # kind 的測試只在 kind 這個 build tag 下編譯；節點映像檔的兩個小程式是另一個模組。
  # The kind tests compile only under the kind build tag; the node image's two small programs are another module.
  go vet -tags kind ./scripts
  go tool staticcheck -tags kind ./scripts
  # 文件截圖的程式只在 screenshots 這個 build tag 下編譯（scripts/ci/screenshots.sh）。
  # The docs' screenshot program compiles only under the screenshots build tag (scripts/ci/screenshots.sh).
  go vet -tags screenshots ./internal/liveview
  go tool staticcheck -tags screenshots ./internal/liveview
  (cd scripts/ci/kind-node && go vet ./...)
  phase "shellcheck and shfmt"
  local shell_files=(scripts/*.sh scripts/ci/*.sh scripts/ci/kind-node/*.sh .ci/run scripts/ci/docker/runc-capbnd-wrapper
    scripts/ci/kind-node/iptables-wrapper)
  shellcheck -x "${shell_files[@]}"
  go tool shfmt -d -i 2 "${shell_files[@]}"
}

cleanup() {
  if [[ -n "${STARTED_DOCKER}" ]]; then
    "${REPO_ROOT}/scripts/ci/docker.sh" stop
  fi
}

# 3. kind 需要一個有回應的 Docker daemon。沒有時，只有以 root 執行才替這次測試啟動一個（見 scripts/ci/docker/README.md），
#    而且明白說出來；結束時停掉。
# 3. kind needs a Docker daemon that answers. When none does, one is started for this run only when running as root
#    (see scripts/ci/docker/README.md), saying so; it is stopped at the end.
ensure_docker() {
  docker_answers && return
  [[ "$(id -u)" == 0 && "$(uname -s)" == Linux ]] ||
    die "the kind tests need a Docker daemon that answers: start Docker, or leave them out with TEST_KIND=no scripts/test.sh"
  phase "no Docker daemon answers; starting one for the kind tests with scripts/ci/docker.sh (stopped again at the end)"
  STARTED_DOCKER=yes
  "${REPO_ROOT}/scripts/ci/docker.sh" start
}

# kind_node_image 決定 kind 測試的節點映像檔，寫進 KIND_NODE_IMAGE：有設定就用它；否則是 kind 以 digest 釘選的
# 上游映像檔，只要它已經在 daemon 裡或拉得下來；都不行（連不到 registry）時，用 scripts/ci/build-kind-node-image.sh
# 從原始碼建出（或從快取載入）的那一個。它不在 $(…) 裡呼叫，建置失敗時 errexit 才會讓 test.sh 停下。
# kind_node_image picks the kind tests' node image into KIND_NODE_IMAGE: the one set there, if any; else the upstream
# image kind pins by digest, when the daemon has it or can pull it; when neither works (no registry reachable), the one
# scripts/ci/build-kind-node-image.sh builds from source (or loads from its cache). It is not called inside $(…), so that
# errexit stops test.sh when the build fails.
kind_node_image() {
  if [[ "${KIND_NODE_IMAGE}" != "${KIND_PINNED_NODE_IMAGE}" ]]; then
    log "using KIND_NODE_IMAGE=${KIND_NODE_IMAGE}"
  elif docker image inspect "${KIND_PINNED_NODE_IMAGE}" >/dev/null 2>&1 || docker pull --quiet "${KIND_PINNED_NODE_IMAGE}" >/dev/null 2>&1; then
    log "using kind's pinned node image ${KIND_PINNED_NODE_IMAGE}"
  else
    log "kind's pinned node image cannot be pulled here (no registry reachable), so using one built from source"
    KIND_NODE_IMAGE="$("${REPO_ROOT}/scripts/ci/build-kind-node-image.sh" | tail -n 1)"
  fi
  [[ -n "${KIND_NODE_IMAGE}" ]] || die "no node image for the kind tests"
}

main() {
  trap cleanup EXIT
  phase "checking tools"
  ensure_tools
  case "${TEST_KIND}" in
  # 先確認 kind 的測試能跑，免得幾分鐘之後才失敗。 / Make sure the kind tests can run first, rather than fail minutes later.
  yes) ensure_docker ;;
  no) ;;
  *) die "TEST_KIND must be yes or no, not '${TEST_KIND}'" ;;
  esac
  [[ "${RACE}" == yes || "${RACE}" == no ]] || die "RACE must be yes or no, not '${RACE}'"
  [[ "${TEST_BUNDLE}" == yes || "${TEST_BUNDLE}" == no ]] || die "TEST_BUNDLE must be yes or no, not '${TEST_BUNDLE}'"
  phase "building (or reusing) the local control plane"
  "${REPO_ROOT}/scripts/build-controlplane.sh"
  phase "static checks"
  static_checks
  case "${RACE}" in
  yes)
    # 課程的程式碼大多在測試的行程裡執行，其餘以 Build 建的執行檔執行：兩者都在 detector 底下。scripts 與 docs/yourown
    # 的測試執行的是 shell 腳本與學習者自己的模組，照一般的方式跑。
    # Most lesson code runs inside the test process, the rest as binaries Build makes: both are under the detector.
    # The scripts and docs/yourown tests run shell scripts and a learner's own module, and run plain.
    local plain
    plain="$(cd "${REPO_ROOT}" && go list ./... | grep -v -e '/internal/' -e '/docs$' -e '/step0[0-9]-')"
    phase "go test -race: internal, docs and every step, against a real kube-apiserver"
    # shellcheck disable=SC2086 # GO_TEST_FLAGS 是要拆開的參數清單。 / GO_TEST_FLAGS is a list of arguments to split.
    (cd "${REPO_ROOT}" && go test -count=1 -race ${GO_TEST_FLAGS} ./internal/... ./docs ./step0*/)
    phase "go test: the rest ($(echo "${plain}" | sed 's|.*/informer-walkthrough/||' | tr '\n' ' '))"
    # shellcheck disable=SC2086 # 兩者都是要拆開的清單。 / Both are lists to split.
    (cd "${REPO_ROOT}" && go test -count=1 ${GO_TEST_FLAGS} ${plain})
    ;;
  no)
    phase "go test ./... against a real kube-apiserver (RACE=no: no race detector)"
    # shellcheck disable=SC2086 # GO_TEST_FLAGS 是要拆開的參數清單。 / GO_TEST_FLAGS is a list of arguments to split.
    (cd "${REPO_ROOT}" && go test -count=1 ${GO_TEST_FLAGS} ./...)
    ;;
  *) die "RACE must be yes or no, not '${RACE}'" ;;
  esac
  # 基準測試不在 go test ./... 裡執行；各跑一輪，確認它們仍然能量（每個 1000 個 Pod，約 10 秒）。
  # Benchmarks do not run under go test ./...; one round each proves they still measure (1000 pods each, about 10 s).
  phase "the heap benchmarks of steps 05 and 06, one round"
  (cd "${REPO_ROOT}" && go test -count=1 -run '^$' -bench CachedPodHeap -benchtime 1x ./step05-shared-informer ./step06-custom-resource)
  if [[ "${TEST_BUNDLE}" == yes ]]; then
    phase "the workshop bundle for $(host_platform): built, then unpacked in a fresh home with GOPROXY=off and no network, up to step 01's first event"
    RUNS=1 "${REPO_ROOT}/scripts/ci/bench-workshop-bundle.sh"
  fi
  if [[ "${TEST_KIND}" == no ]]; then
    phase "all checks passed, except the kind tests: TEST_KIND=no left them out"
    return
  fi
  phase "the kind tests: the node image"
  kind_node_image
  phase "the walkthrough and the steps on a kind cluster (${KIND_NODE_IMAGE})"
  # shellcheck disable=SC2086 # GO_TEST_FLAGS 是要拆開的參數清單。 / GO_TEST_FLAGS is a list of arguments to split.
  (cd "${REPO_ROOT}" && INFORMER_LAB_KIND_NODE_IMAGE="${KIND_NODE_IMAGE}" go test -count=1 -tags kind -run 'OnKind' ${GO_TEST_FLAGS} ./scripts)
  phase "all checks passed"
}

main "$@"
