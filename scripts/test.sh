#!/usr/bin/env bash
# test.sh：專案的測試指令。在全新的機器上也會自己準備好一切（包括控制平面），然後檢查格式、
# 靜態分析、shell 腳本，連到真實的 kube-apiserver 執行 go test ./...，
# 最後在真的 kind 叢集上跑導覽與每一步（需要 Docker；TEST_KIND=no 可以略過，最後一行會說）。
# 分兩組：quick 組（預設，學習者用的）執行 go test -short，略過只屬於 full 組的測試；full 組（CI 的 .ci/run）再加上
# race detector、解說每一站的簡報模式版面檢查、費時的演練、一輪步驟 05 與 06 的基準測試、工作坊離線包，而且靜態檢查一定重跑。
# The project's test command. On a fresh machine it sets up everything it needs (the control plane included), then checks
# formatting, static analysis and the shell scripts, runs go test ./... against a real kube-apiserver, and finally runs
# the walkthrough and every step on a real kind cluster (needs Docker; TEST_KIND=no leaves that out, and the last line
# says so).
# It has two tiers: quick (the default, the learner's) runs go test -short, which leaves out the tests that belong to
# the full tier only; full (CI's .ci/run) adds the race detector, the presenter-mode check at every tour stop, the long drills, one round
# of steps 05 and 06's benchmarks and the workshop bundle, and always runs the static checks again.
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# quick：學習者用的那一組（預設）；full：CI 跑的那一組，什麼都跑。 / quick: the learner's tier (the default); full: the tier CI runs, with everything.
TIER="${TIER:-quick}"
# 傳給 go test 的額外參數，例如 GO_TEST_FLAGS='-run TestDemo -v'。 / Extra go test arguments, for example GO_TEST_FLAGS='-run TestDemo -v'.
GO_TEST_FLAGS="${GO_TEST_FLAGS:-}"
# yes：在 kind 叢集上也跑導覽與每個步驟（預設）；no：不跑，最後一行會這樣說。
# yes: also run the walkthrough and every step on a kind cluster (the default); no: leave them out, and the last line says so.
TEST_KIND="${TEST_KIND:-yes}"
# yes：為這台機器建一個工作坊離線包（從工作目錄），在全新的家目錄、沒有網路下，從解開到步驟 01 的第一個事件跑一次；
# no：不跑。預設：full 組是 yes，quick 組是 no。
# yes: build a workshop bundle for this machine (from the working tree) and run it once, from unpacking to step 01's
# first event, in a fresh home with no network; no: leave it out. The default: yes in the full tier, no in quick.
TEST_BUNDLE="${TEST_BUNDLE:-$([[ "${TIER}" == full ]] && echo yes || echo no)}"
# yes：internal、docs 與每一步的測試在 race detector 底下跑（以執行檔跑的步驟也帶著它，見 internal/testenv 的 Build），
# 取代一般的執行，不是多跑一次；no：全部一般地跑，快一些。預設：full 組是 yes，quick 組是 no。
# yes: the tests of internal, docs and every step run under the race detector (a step run as a binary has it too, see
# internal/testenv's Build), instead of a plain run, not as well as one; no: everything runs plain, faster. The default:
# yes in the full tier, no in quick.
RACE="${RACE:-$([[ "${TIER}" == full ]] && echo yes || echo no)}"

# 這次執行是否啟動了 Docker daemon（由 scripts/ci/docker.sh 啟動）；是的話，結束時停掉。 / Whether this run started a Docker daemon (through scripts/ci/docker.sh), to stop it at the end.
STARTED_DOCKER=""
# 在背景準備 kind 節點映像檔的工作：它的 PID（也是它的 process group），以及放它的輸出與映像檔名稱的暫存目錄。
# The background job that readies the kind node image: its PID (also its process group), and the temporary directory
# holding its output and the image's name.
NODE_IMAGE_JOB=""
NODE_IMAGE_DIR=""
# 在背景跑的 kind 測試：PID（也是它的 process group）與放它輸出的檔案。
# The kind tests running in the background: their PID (also their process group) and the file holding their output.
KIND_TESTS_JOB=""
KIND_TESTS_LOG=""
# 在背景為 darwin/arm64 交叉編譯的工作：PID（也是它的 process group）與放它輸出的檔案；通過之後才記下靜態檢查的結果
# （STATIC_STAMP 檔案寫入 STATIC_KEY）。
# The background darwin/arm64 cross-compile: its PID (also its process group) and the file holding its output; only
# when it has passed are the static checks recorded as passed (STATIC_KEY written to the STATIC_STAMP file).
DARWIN_JOB=""
DARWIN_LOG=""
STATIC_STAMP=""
STATIC_KEY=""

STARTED=${SECONDS}

# cpu_busy_ticks 印出整台機器開機以來忙碌的 CPU 時間（clock tick）：Linux 的 /proc/stat 裡 idle 與 iowait 以外的欄位。
# 沒有 /proc/stat（macOS）時什麼都不印。
# cpu_busy_ticks prints the whole machine's busy CPU time since boot, in clock ticks: every column of Linux's /proc/stat
# but idle and iowait. Where there is no /proc/stat (macOS) it prints nothing.
cpu_busy_ticks() {
  [[ -r /proc/stat ]] || return 0
  awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}
STARTED_CPU="$(cpu_busy_ticks)"

# phase 印出一個階段的開始：從 test.sh 開始算的時間，以及（在 Linux 上）整台機器到那時用掉的 CPU 分鐘，
# 所以兩行相減就是一個階段花的時間與 CPU。
# phase prints the start of a phase: the time since test.sh started and (on Linux) the CPU-minutes the whole machine
# has used since then, so the difference between two lines is what a phase took in time and in CPU.
phase() {
  local cpu=""
  if [[ -n "${STARTED_CPU}" ]]; then
    cpu="$(awk -v now="$(cpu_busy_ticks)" -v start="${STARTED_CPU}" -v hz="$(getconf CLK_TCK)" \
      'BEGIN { printf ", %.1f CPU-min", (now - start) / hz / 60 }')"
  fi
  log "[$(seconds_since "${STARTED}")${cpu}] $*"
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

# static_key 印出靜態檢查看的一切的雜湊：工作目錄裡 git 追蹤或沒被忽略的每個檔案（名字與內容）、Go 與 shellcheck
# 的版本。不在 git 的工作目錄裡（例如解開的工作坊離線包）時什麼都不印：那就每次都檢查。
# static_key prints a hash of everything the static checks look at: every file in the working tree that git tracks or
# does not ignore (names and contents), and the Go and shellcheck versions. Outside a git work tree (an unpacked
# workshop bundle, say) it prints nothing: then the checks always run.
static_key() {
  git -C "${REPO_ROOT}" rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
  # 每個檔案的雜湊：Linux 用 sha256sum，macOS 用 shasum（跟 lib.sh 的 sha256_of 一樣）。
  # Each file's hash: sha256sum on Linux, shasum on macOS (as lib.sh's sha256_of does).
  local sum=(sha256sum)
  command -v sha256sum >/dev/null 2>&1 || sum=(shasum -a 256)
  {
    go env GOVERSION
    shellcheck --version | grep '^version'
    git -C "${REPO_ROOT}" ls-files -z -co --exclude-standard | (
      cd "${REPO_ROOT}"
      while IFS= read -r -d '' f; do
        [[ -f "${f}" ]] && printf '%s\0' "${f}"
      done
    ) | (cd "${REPO_ROOT}" && xargs -0 "${sum[@]}")
  } | sha256_of
}

# 2. 靜態檢查：gofmt、go vet、staticcheck、shellcheck、shfmt（版本都已釘選：go.mod 的 tool 指令，以及 Debian 套件）。
#    quick 組裡，同樣的檔案上次已經通過時不再重跑（結果記在快取目錄）；full 組每次都跑。
# 2. Static checks: gofmt, go vet, staticcheck, shellcheck, shfmt (versions pinned by go.mod's tool directives and Debian).
#    In the quick tier they are not run again when the very same files passed last time (kept in the cache directory);
#    the full tier always runs them.
static_checks() {
  cd "${REPO_ROOT}"
  local stamp key
  stamp="${XDG_CACHE_HOME:-$HOME/.cache}/informer-walkthrough/static-checks-passed"
  key="$(static_key)"
  if [[ "${TIER}" == quick && -n "${key}" && -f "${stamp}" && "$(cat "${stamp}")" == "${key}" ]]; then
    phase "static checks: these very files passed them last time (TIER=full runs them again)"
    return
  fi
  run_static_checks
  STATIC_STAMP="${stamp}" STATIC_KEY="${key}"
}

# finish_static_checks 等背景的 darwin/arm64 交叉編譯結束：失敗時印出編譯器的輸出並結束；通過時記下這些檔案通過了靜態檢查。
# finish_static_checks waits for the background darwin/arm64 cross-compile: when it failed, it prints the compiler's
# output and stops; when it passed, it records that these files passed the static checks.
finish_static_checks() {
  if [[ -n "${DARWIN_JOB}" ]]; then
    local status=0
    wait "${DARWIN_JOB}" || status=$?
    DARWIN_JOB=""
    if ((status != 0)); then
      cat "${DARWIN_LOG}" >&2
      die "some packages do not build for darwin/arm64 (the compiler's output is above)"
    fi
    phase "the darwin/arm64 cross-compile passed"
  fi
  if [[ -n "${STATIC_KEY}" ]]; then
    mkdir -p "$(dirname "${STATIC_STAMP}")"
    printf '%s\n' "${STATIC_KEY}" >"${STATIC_STAMP}"
    STATIC_KEY=""
  fi
}

run_static_checks() {
  local unformatted
  unformatted="$(gofmt -l .)"
  [[ -z "${unformatted}" ]] || die "gofmt would change: ${unformatted//$'\n'/ } (run gofmt -w on them)"
  phase "go vet"
  go vet ./...
  # macOS：每個套件（步驟與輔助指令）都要能為 darwin/arm64 編譯；之後的執行從快取拿，只要幾秒。
  # macOS: every package (the steps and the helper commands) must build for darwin/arm64; later runs take it from
  # the cache in seconds.
  # 只編譯、不連結（go build 一次給好幾個套件時就是這樣）：平台相關的程式碼錯了，編譯就會失敗。不做最佳化、
  # 不寫除錯資訊（-N -l -dwarf=false）：要檢查的是編不編得過，這樣冷的時候少花約四分之一的 CPU（README.md 的測試一節）。
  # 它跟別的都不共用編譯結果，所以在背景以最低的優先權執行，用測試等叢集時沒用到的 CPU；finish_static_checks 在 go test 之後等它。
  # Compiled, not linked (which is what go build does when given several packages): platform code that is wrong fails
  # to compile. Without optimisation or debug information (-N -l -dwarf=false): what is checked is whether it compiles,
  # and so a cold run spends about a quarter less CPU on it (README.md, Tests). It shares no compiled package with
  # anything else, so it runs in the background at the lowest priority, on the CPU the tests leave while they wait on
  # clusters; finish_static_checks waits for it after go test.
  phase "cross-compiling every package for darwin/arm64 (macOS on Apple silicon), in the background at the lowest priority (checked after go test)"
  DARWIN_LOG="$(mktemp)"
  set -m
  (
    cd "${REPO_ROOT}"
    export GOOS=darwin GOARCH=arm64
    lowest_priority go build -gcflags='all=-N -l -dwarf=false' ./...
  ) </dev/null >"${DARWIN_LOG}" 2>&1 &
  DARWIN_JOB=$!
  set +m
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
  # 跟建置節點映像檔時同樣的設定（不用 cgo、-trimpath），vet 編譯的相依就是映像檔要用、建置快取可以共用的那些。
  # The same settings as the node image's build (no cgo, -trimpath), so the dependencies vet compiles are the ones the
  # image uses, shared through the build cache.
  (cd scripts/ci/kind-node && CGO_ENABLED=0 go vet -trimpath ./...)
  phase "shellcheck and shfmt"
  local shell_files=(scripts/*.sh scripts/ci/*.sh scripts/ci/kind-node/*.sh .ci/run scripts/ci/docker/runc-capbnd-wrapper
    scripts/ci/kind-node/iptables-wrapper)
  shellcheck -x "${shell_files[@]}"
  go tool shfmt -d -i 2 "${shell_files[@]}"
}

# stop_group 停掉一個還在跑的背景工作的整個 process group（它們都以 set -m 啟動），並等它結束。
# stop_group stops the whole process group of a background job still running (each was started under set -m), and
# waits for it to end.
stop_group() {
  [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null || return 0
  kill -TERM -- -"$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

cleanup() {
  # 還在背景跑的工作（例如某個測試失敗了）：darwin 的交叉編譯、kind 的測試、節點映像檔；建置腳本自己的 EXIT trap
  # 會清掉它的工作目錄與 container。
  # Jobs still running in the background (a test failed, say): the darwin cross-compile, the kind tests, the node image,
  # whose build script's own EXIT trap removes its work directory and container.
  stop_group "${DARWIN_JOB}"
  stop_group "${KIND_TESTS_JOB}"
  stop_group "${NODE_IMAGE_JOB}"
  [[ -z "${DARWIN_LOG}" ]] || rm -f "${DARWIN_LOG}"
  [[ -z "${KIND_TESTS_LOG}" ]] || rm -f "${KIND_TESTS_LOG}"
  [[ -z "${NODE_IMAGE_DIR}" ]] || rm -rf "${NODE_IMAGE_DIR}"
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
    KIND_NODE_IMAGE="$(lowest_priority "${REPO_ROOT}/scripts/ci/build-kind-node-image.sh" | tail -n 1)"
  fi
  [[ -n "${KIND_NODE_IMAGE}" ]] || die "no node image for the kind tests"
}

# lowest_priority 以最低的 CPU 優先權執行一個指令；有 ionice（Linux）時，I/O 也排在最後（idle 類別）。
# lowest_priority runs a command at the lowest CPU priority, and where ionice exists (Linux) in the idle I/O class too.
lowest_priority() {
  if command -v ionice >/dev/null 2>&1; then
    nice -n 19 ionice -c 3 "$@"
  else
    nice -n 19 "$@"
  fi
}

# start_node_image 在背景執行 kind_node_image；要從原始碼建置時，建置用最低的 CPU 與 I/O 優先權（lowest_priority）：
# go test 大多在等叢集與步驟，沒用到的 CPU 拿來建節點映像檔（在沒有快取的機器上要好幾分鐘），測試要用 CPU 時優先。
# 它在自己的 process group 裡（set -m），所以 cleanup 停得掉整組。輸出寫進檔案，在 kind 測試的輸出之前才印出來，
# 不跟 go test 的輸出混在一起。
# start_node_image runs kind_node_image in the background; when that builds from source, the build runs at the lowest
# CPU and I/O priority (lowest_priority): go test mostly waits on clusters and steps, and the CPU it leaves goes to
# building the node image (minutes on a machine without the cache), while the tests come first whenever they want the
# CPU. It runs in a process group of its own (set -m), so cleanup can stop all of it. Its output goes to a file, printed
# just before the kind tests' output rather than mixed into go test's.
start_node_image() {
  NODE_IMAGE_DIR="$(mktemp -d)"
  set -m
  (
    # done 在工作結束時出現，不論成敗：已結束但還沒被 wait 的行程，kill -0 仍然找得到。
    # done appears when the job ends, whether it failed or not: kill -0 still finds a process that ended but was not
    # waited for.
    trap 'touch "${NODE_IMAGE_DIR}/done"' EXIT
    kind_node_image
    printf '%s\n' "${KIND_NODE_IMAGE}" >"${NODE_IMAGE_DIR}/name"
  ) </dev/null >"${NODE_IMAGE_DIR}/log" 2>&1 &
  NODE_IMAGE_JOB=$!
  set +m
}

# wait_node_image 等背景的工作結束，印出它的輸出，把映像檔名稱放進 KIND_NODE_IMAGE；工作失敗時 test.sh 也失敗。
# wait_node_image waits for the background job to end, prints its output and puts the image's name in
# KIND_NODE_IMAGE; when the job failed, test.sh fails too.
wait_node_image() {
  local status=0
  wait "${NODE_IMAGE_JOB}" || status=$?
  NODE_IMAGE_JOB=""
  sed 's/^/  | /' "${NODE_IMAGE_DIR}/log" >&2
  ((status == 0)) || die "readying the kind node image failed (its output is above)"
  KIND_NODE_IMAGE="$(cat "${NODE_IMAGE_DIR}/name")"
}

# kind_tests 執行 kind 的測試（它們自己建立並刪除叢集）。 / kind_tests runs the kind tests (they create and delete their cluster themselves).
kind_tests() {
  # shellcheck disable=SC2086 # GO_TEST_FLAGS 是要拆開的參數清單。 / GO_TEST_FLAGS is a list of arguments to split.
  (cd "${REPO_ROOT}" && INFORMER_LAB_KIND_NODE_IMAGE="${KIND_NODE_IMAGE}" go test -count=1 -vet=off -tags kind -run 'OnKind' ${GO_TEST_FLAGS} ./scripts)
}

# start_kind_tests_when_ready 把 kind 的測試放到背景，節點映像檔一準備好就開始（已經好了就馬上開始），跟之後的階段
# 同時進行：它們大多在等 kind 的叢集，留下的 CPU 給其餘的測試與工作坊離線包。只在 full 組的 race 測試之後（RACE=no 時是
# heap 基準測試之後）呼叫：在那之前，編譯要用兩個核心。等待的方法是每秒看一次映像檔的工作是否留下 done 檔案（那是
# 另一個背景工作，這個子 shell 無法 wait 它）。它的輸出與節點映像檔工作的輸出，最後才印出來。
# start_kind_tests_when_ready puts the kind tests in the background, to start as soon as the node image is ready (at
# once if it is), beside the phases that follow: they mostly wait on kind's cluster, and leave the CPU to the other tests
# and the workshop bundle. It is called only after the full tier's race tests (with RACE=no, after its heap
# benchmarks): before that, the compiles want both cores. It waits by looking every second for the file done that the
# image's job leaves (that is another background job, which this subshell cannot wait for). Its output, and the node
# image job's, is printed at the end.
start_kind_tests_when_ready() {
  [[ "${TEST_KIND}" == yes && -z "${KIND_TESTS_JOB}" ]] || return 0
  phase "the kind tests start in the background as soon as the node image is ready (their output comes at the end)"
  KIND_TESTS_LOG="$(mktemp)"
  set -m
  (
    until [[ -f "${NODE_IMAGE_DIR}/done" ]]; do
      sleep 1
    done
    # name 只在工作成功時寫下；失敗的原因在工作自己的輸出裡，最後會印出來。
    # name is written only when the job succeeded; why it failed is in the job's own output, printed at the end.
    [[ -s "${NODE_IMAGE_DIR}/name" ]] || die "readying the kind node image failed, so the kind tests did not run"
    # shellcheck disable=SC2030 # 只給這個子 shell 裡的 kind_tests 用。 / For kind_tests in this subshell only.
    KIND_NODE_IMAGE="$(cat "${NODE_IMAGE_DIR}/name")"
    phase "the node image is ready; the kind tests start (${KIND_NODE_IMAGE})"
    kind_tests
  ) </dev/null >"${KIND_TESTS_LOG}" 2>&1 &
  KIND_TESTS_JOB=$!
  set +m
}

main() {
  trap cleanup EXIT
  # 設定錯了：在做任何事之前就以一行說明結束。 / A wrong setting: one line, before anything is done.
  [[ "${TIER}" == quick || "${TIER}" == full ]] || die "TIER must be quick or full, not '${TIER}'"
  [[ "${TEST_KIND}" == yes || "${TEST_KIND}" == no ]] || die "TEST_KIND must be yes or no, not '${TEST_KIND}'"
  [[ "${RACE}" == yes || "${RACE}" == no ]] || die "RACE must be yes or no, not '${RACE}'"
  [[ "${TEST_BUNDLE}" == yes || "${TEST_BUNDLE}" == no ]] || die "TEST_BUNDLE must be yes or no, not '${TEST_BUNDLE}'"
  phase "checking tools"
  ensure_tools
  # 先確認 kind 的測試能跑，免得幾分鐘之後才失敗。 / Make sure the kind tests can run first, rather than fail minutes later.
  [[ "${TEST_KIND}" == no ]] || ensure_docker
  # 節點映像檔從一開始就在背景準備：要從原始碼建置時，它先下載（網路），那時前景正在編譯（CPU）。
  # The node image is readied in the background from the start: when it is built from source, it downloads first
  # (network) while the foreground compiles (CPU).
  if [[ "${TEST_KIND}" == yes ]]; then
    phase "readying the kind tests' node image in the background, at the lowest priority (its output comes with the kind tests')"
    start_node_image
  fi
  phase "building (or reusing) the local control plane"
  "${REPO_ROOT}/scripts/build-controlplane.sh"
  # full 組從這裡起像工作坊離線包那樣建置：不用 cgo、-trimpath。靜態檢查、測試與離線包因此共用同一份編譯結果，
  # 離線包不必再把每個相依編譯一次（冷的時候約 4 CPU 分鐘）。race detector 要 cgo，那一組另外設定 CGO_ENABLED=1。
  # 控制平面（上面）與學習者的 go run 維持 Go 的預設，quick 組也是：學習者的建置跟它共用。
  # From here on the full tier builds as the workshop bundle does: without cgo, with -trimpath. So the static checks, the
  # tests and the bundle share one set of compiled packages, and the bundle need not compile every dependency again
  # (about 4 CPU-minutes when cold). The race detector needs cgo, and its tier turns it back on. The control plane
  # (above) and a learner's go run keep Go's defaults, as the quick tier does: a learner's builds share with it.
  if [[ "${TIER}" == full ]]; then
    export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:+${GOFLAGS} }-trimpath"
  fi
  phase "static checks"
  static_checks
  # 下面每個 go test 都帶 -vet=off：go test 平常會對它測的套件跑 go vet 的一部分檢查，而靜態檢查剛剛已經對這些檔案
  # 跑過 go vet 的全部檢查（quick 組裡也可能是上一次，見 static_checks：檔案一個位元組都沒變）。
  # Every go test below has -vet=off: go test would run a subset of go vet's checks on the packages it tests, and the
  # static checks have just run all of go vet's checks on these files (in the quick tier perhaps on an earlier run, see
  # static_checks: not a byte of them changed since).
  # quick 組：go test -short 略過只屬於 full 組的測試（testenv.FullTier 說是哪些、為什麼）。
  # The quick tier: go test -short leaves out the tests that belong to the full tier only (testenv.FullTier says which
  # and why).
  local short=""
  [[ "${TIER}" == full ]] || short="-short"
  case "${RACE}" in
  yes)
    # 課程的程式碼大多在測試的行程裡執行，其餘以 Build 建的執行檔執行：兩者都在 detector 底下。scripts 與 docs/yourown
    # 的測試執行的是 shell 腳本與學習者自己的模組，照一般的方式跑。
    # Most lesson code runs inside the test process, the rest as binaries Build makes: both are under the detector.
    # The scripts and docs/yourown tests run shell scripts and a learner's own module, and run plain.
    local plain
    plain="$(cd "${REPO_ROOT}" && go list ./... | grep -v -e '/internal/' -e '/docs$' -e '/step0[0-9]-')"
    phase "go test -race${short:+ ${short}}: internal, docs and every step, against a real kube-apiserver"
    # shellcheck disable=SC2086 # GO_TEST_FLAGS 是要拆開的參數清單。 / GO_TEST_FLAGS is a list of arguments to split.
    (cd "${REPO_ROOT}" && CGO_ENABLED=1 go test -count=1 -vet=off -race ${short} ${GO_TEST_FLAGS} ./internal/... ./docs ./step0*/)
    [[ "${TIER}" != full ]] || start_kind_tests_when_ready
    phase "go test${short:+ ${short}}: the rest ($(echo "${plain}" | sed 's|.*/informer-walkthrough/||' | tr '\n' ' '))"
    # shellcheck disable=SC2086 # 都是要拆開的清單。 / All are lists to split.
    (cd "${REPO_ROOT}" && go test -count=1 -vet=off ${short} ${GO_TEST_FLAGS} ${plain})
    ;;
  no)
    # 測試大多在等叢集與步驟，不是在用 CPU：同時跑的套件比核心多一個（2 核心上 scripts/ci/test-times.sh -short
    # 量過：-p 3 比 -p 2 與 -p 4 都快，見 README 的測試一節）。
    # The tests mostly wait on clusters and steps rather than use the CPU: one package more at once than there are
    # cores (measured on 2 cores with scripts/ci/test-times.sh -short: -p 3 beats both -p 2 and -p 4; see the README's
    # Tests).
    local parallel
    parallel=$(($(getconf _NPROCESSORS_ONLN) + 1))
    phase "go test${short:+ ${short}} -p ${parallel} ./... against a real kube-apiserver (RACE=no: no race detector)"
    # -ldflags=-w：測試執行檔不寫 DWARF 除錯資訊（堆疊追蹤用的是 pclntab，不受影響）。go test 每次都重新連結每個測試
    # 執行檔，這樣每個少花大約一秒的 CPU。
    # -ldflags=-w: the test binaries carry no DWARF debug information (stack traces use the pclntab, unaffected). go test
    # links every test binary again on every run, and this saves about a CPU-second on each.
    # shellcheck disable=SC2086 # GO_TEST_FLAGS 是要拆開的參數清單。 / GO_TEST_FLAGS is a list of arguments to split.
    (cd "${REPO_ROOT}" && go test -count=1 -vet=off -ldflags=-w ${short} -p "${parallel}" ${GO_TEST_FLAGS} ./...)
    ;;
  *) die "RACE must be yes or no, not '${RACE}'" ;;
  esac
  finish_static_checks
  # 基準測試不在 go test ./... 裡執行；full 組各跑一輪，確認它們還量得出結果（每個 1000 個 Pod，約 10 秒）。
  # Benchmarks do not run under go test ./...; the full tier runs one round of each to prove they still measure (1000
  # pods each, about 10 s).
  if [[ "${TIER}" == full ]]; then
    phase "the heap benchmarks of steps 05 and 06, one round"
    (cd "${REPO_ROOT}" && go test -count=1 -vet=off -run '^$' -bench CachedPodHeap -benchtime 1x ./step05-shared-informer ./step06-custom-resource)
    start_kind_tests_when_ready
  fi
  if [[ "${TEST_BUNDLE}" == yes ]]; then
    phase "the workshop bundle for $(host_platform): built, then unpacked in a fresh home with GOPROXY=off and no network, up to step 01's first event"
    RUNS=1 "${REPO_ROOT}/scripts/ci/bench-workshop-bundle.sh"
  fi
  if [[ "${TEST_KIND}" == no ]]; then
    phase "all checks passed, except the kind tests: TEST_KIND=no left them out"
    return
  fi
  if [[ -n "${KIND_TESTS_JOB}" ]]; then
    phase "the walkthrough and the steps on a kind cluster: waiting for the kind tests started earlier"
    local status=0
    wait "${KIND_TESTS_JOB}" || status=$?
    KIND_TESTS_JOB=""
    # 節點映像檔的工作早已結束：印出它做了什麼（失敗時 wait_node_image 就在這裡停下），再印 kind 測試的輸出。
    # The node image job ended earlier: print what it did (wait_node_image stops here if it failed), then the kind tests'
    # output.
    wait_node_image
    phase "the kind tests' output:"
    cat "${KIND_TESTS_LOG}"
    ((status == 0)) || die "the kind tests failed (their output is above)"
  else
    phase "the kind tests: waiting for the node image readied in the background"
    wait_node_image
    # shellcheck disable=SC2031 # wait_node_image 剛在這個 shell 裡設定它。 / wait_node_image has just set it in this shell.
    phase "the walkthrough and the steps on a kind cluster (${KIND_NODE_IMAGE})"
    kind_tests
  fi
  phase "all checks passed"
}

main "$@"
