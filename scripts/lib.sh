#!/usr/bin/env bash
# lib.sh：腳本共用的設定與小工具，由其他腳本 source；它不設定 shell 選項，那是 source 它的腳本的事。
# Settings and helpers the scripts share; sourced, not run. It sets no shell options: the scripts that source it do.
# shellcheck disable=SC2034 # 變數給 source 這個檔案的腳本使用。 / Variables are used by the scripts that source this file.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
# 小程式（internal/cmd）從這裡讀 repo 裡的檔案（控制平面的版本、kwok 的 stages）；工作坊離線包裡預先建好的小程式
# 不知道自己的原始碼在學員機器上的哪裡，見 internal/controlplane 的 RepoRootEnv。
# The helper commands (internal/cmd) read the repository's files from here (the control plane's versions, kwok's
# stages); a helper prebuilt in a workshop bundle cannot know where its sources are on the participant's machine; see
# internal/controlplane's RepoRootEnv.
export INFORMER_LAB_REPO_ROOT="${REPO_ROOT}"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
CLUSTER_NAME="${CLUSTER_NAME:-informer-lab}"
# 本機叢集的狀態目錄：憑證、etcd 資料、kubeconfig、PID。 / Local cluster state: certificates, etcd data, kubeconfig, PIDs.
STATE_DIR="${INFORMER_LAB_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/informer-walkthrough/${CLUSTER_NAME}}"
# kind v0.33.0 預設的節點映像檔，以 digest 釘選（kind 的 pkg/apis/config/defaults/image.go）。
# kind v0.33.0's default node image, pinned by digest (kind's pkg/apis/config/defaults/image.go).
KIND_PINNED_NODE_IMAGE="kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5"
# kind 用的節點映像檔；沒有 registry 的機器用 scripts/ci/build-kind-node-image.sh 建出的那一個。
# The node image kind uses; on a machine without a registry, the one scripts/ci/build-kind-node-image.sh builds.
KIND_NODE_IMAGE="${KIND_NODE_IMAGE:-${KIND_PINNED_NODE_IMAGE}}"
LOCAL_CONTEXT="local-${CLUSTER_NAME}"
# DOWN 是停掉這個叢集的指令，帶著學習者設定的 CLUSTER_NAME 與 INFORMER_LAB_STATE_DIR：提示照抄就對。
# DOWN is the command that stops this cluster, with the CLUSTER_NAME and INFORMER_LAB_STATE_DIR the learner set: a hint
# that quotes it works as written.
DOWN="scripts/cluster-down.sh"
[[ "${CLUSTER_NAME}" == informer-lab ]] || DOWN="CLUSTER_NAME=${CLUSTER_NAME} ${DOWN}"
[[ -z "${INFORMER_LAB_STATE_DIR:-}" ]] || DOWN="INFORMER_LAB_STATE_DIR=${INFORMER_LAB_STATE_DIR} ${DOWN}"
KIND_CONTEXT="kind-${CLUSTER_NAME}"

# log 印出一行帶前置字串（prefix）的訊息到 stderr。 / log prints one prefixed line to stderr.
log() {
  printf '%s: %s\n' "$(basename "$0" .sh)" "$*" >&2
}

# die 印出一行錯誤並以 1 結束。 / die prints one error line and exits 1.
die() {
  log "error: $*"
  exit 1
}

# controlplane_key 由兩個建置模組算出快取 key：go.mod 裡的版本，加上兩個 go.sum 的雜湊（相依換了版本，也換一個快取目錄）；
# internal/controlplane.CacheKey 用同一規則。
# controlplane_key derives the cache key from the two build modules: the versions in their go.mod files and a hash of
# their go.sum files (so a change of any dependency gets a fresh cache directory too); internal/controlplane.CacheKey
# uses the same rule.
controlplane_key() {
  local gomod="${REPO_ROOT}/scripts/controlplane/go.mod" kwokmod="${REPO_ROOT}/scripts/kwok/go.mod" kube etcd kwok sums
  kube="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2; exit }' "${gomod}")"
  etcd="$(awk '$1 == "go.etcd.io/etcd/server/v3" && $2 ~ /^v/ { print $2; exit }' "${gomod}")"
  kwok="$(awk '$1 == "sigs.k8s.io/kwok" && $2 ~ /^v/ { print $2; exit }' "${kwokmod}")"
  [[ -n "${kube}" && -n "${etcd}" && -n "${kwok}" ]] || die "cannot read versions from ${gomod} and ${kwokmod}"
  sums="$(cat "${REPO_ROOT}/scripts/controlplane/go.sum" "${REPO_ROOT}/scripts/kwok/go.sum" | sha256_of)" ||
    die "cannot read the go.sum files beside ${gomod} and ${kwokmod}"
  printf 'kubernetes-%s_etcd-%s_kwok-%s_%s\n' "${kube}" "${etcd}" "${kwok}" "${sums:0:12}"
}

# kube_version 印出建置模組釘選的 Kubernetes 版本，例如 v1.37.2。 / kube_version prints the Kubernetes version the build module pins, such as v1.37.2.
kube_version() {
  local key
  key="$(controlplane_key)"
  key="${key#kubernetes-}"
  printf '%s\n' "${key%%_*}"
}

# kube_version_ldflags 跟正式版本一樣把版本號寫進執行檔，/version、kubectl version 與節點上的 kubelet 版本
# 才會顯示 v1.37.x，而不是 v0.0.0-master。
# kube_version_ldflags stamps the version into the binary as release builds do, so /version, kubectl version and the
# node's kubelet version show v1.37.x, not v0.0.0-master.
kube_version_ldflags() {
  local kube major minor
  kube="$(kube_version)"
  major="${kube#v}"
  major="${major%%.*}"
  minor="${kube#v*.}"
  minor="${minor%%.*}"
  printf '%s\n' "-X k8s.io/component-base/version.gitVersion=${kube} -X k8s.io/component-base/version.gitMajor=${major} -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean"
}

# controlplane_bin_dir 是本機叢集執行檔所在目錄：INFORMER_LAB_BIN_DIR，否則每個使用者的快取。給了別的平台
# （例如 darwin/arm64，工作坊離線包用）時，是那個平台在快取裡自己的目錄；那些執行檔在這台機器上不能執行。
# controlplane_bin_dir is where the local cluster's binaries live: INFORMER_LAB_BIN_DIR, else the per-user cache. Given
# another platform (darwin/arm64, say, for the workshop bundle), it is that platform's own directory in the cache; those
# binaries cannot run on this machine.
controlplane_bin_dir() {
  local platform="${1:-$(host_platform)}" suffix=""
  [[ "${platform}" == "$(host_platform)" ]] || suffix="-${platform/\//-}"
  if [[ -n "${INFORMER_LAB_BIN_DIR:-}" && -z "${suffix}" ]]; then
    printf '%s\n' "${INFORMER_LAB_BIN_DIR}"
  else
    printf '%s/informer-walkthrough/controlplane/%s%s\n' "${XDG_CACHE_HOME:-$HOME/.cache}" "$(controlplane_key)" "${suffix}"
  fi
}

# host_platform 印出這台機器的 Go 平台，例如 linux/amd64。 / host_platform prints this machine's Go platform, such as linux/amd64.
host_platform() {
  go env GOHOSTOS GOHOSTARCH | paste -sd / -
}

# built_for 在執行檔 $1 是為平台 $2（OS/ARCH）建的 Go 程式時成功：讀 go version -m 寫在裡面的 GOOS 與 GOARCH，
# 所以別的平台的執行檔也查得了。
# built_for succeeds when binary $1 is a Go program built for platform $2 (OS/ARCH): it reads the GOOS and GOARCH
# go version -m finds written in it, so it works for another platform's binaries too.
built_for() {
  local info
  info="$(go version -m "$1" 2>/dev/null)" || return 1
  grep -q "GOOS=${2%/*}\$" <<<"${info}" && grep -q "GOARCH=${2#*/}\$" <<<"${info}"
}

# remove_tree 刪掉一個目錄，連同 Go 模組快取裡唯讀的檔案。 / remove_tree removes a directory, read-only Go module cache files included.
remove_tree() {
  chmod -R u+w "$1" 2>/dev/null || true
  rm -rf "$1"
}

# now_ms 印出現在的毫秒數（macOS 的 date 沒有 %N，所以用 perl）。 / now_ms prints the time in milliseconds (macOS date has no %N, hence perl).
now_ms() {
  perl -MTime::HiRes=time -e 'printf "%d\n", time * 1000'
}

# sha256_of 印出標準輸入的 SHA-256（Linux 用 sha256sum，macOS 用 shasum）。 / sha256_of prints the SHA-256 of standard input (sha256sum on Linux, shasum on macOS).
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum | cut -d ' ' -f 1
  else
    shasum -a 256 | cut -d ' ' -f 1
  fi
}

# 快取裡的小程式執行檔沒用多少天之後，下一次建置時刪掉。 / Days after which an unused helper binary goes at the next build.
HELPER_KEEP_DAYS="${HELPER_KEEP_DAYS:-14}"

# helper_key 印出小程式的輸入的雜湊：repo 的位置、Go 的版本與平台、go.mod、go.sum，以及 internal 底下每個不是測試的檔案，
# 包括內嵌進執行檔的（即時頁面的 .js、.css、.html）：少了它們，改了頁面的人會拿到舊的頁面。
# helper_key prints the hash of a helper's inputs: the repository's location, the Go version and platform, go.mod,
# go.sum, and every file under internal that is not a test, embedded ones included (the live page's .js, .css, .html):
# without them, whoever changed the page would get the old one.
helper_key() {
  local file
  (
    cd "${REPO_ROOT}" || exit 1
    printf '%s\n' "${REPO_ROOT}"
    go env GOVERSION GOOS GOARCH
    find go.mod go.sum internal -type f ! -name '*_test.go' ! -path '*/testdata/*' | LC_ALL=C sort |
      while IFS= read -r file; do
        printf '%s\n' "${file}"
        cat "${file}"
      done
  ) | sha256_of | cut -c 1-16
}

# helper_bin 印出 internal/cmd/NAME 建好的執行檔路徑；只有原始碼、go.mod、Go 版本或 repo 位置變了才重新建置，
# 所以第二次起不用等 go build。執行檔放在每個使用者的快取裡，以這些輸入的雜湊命名。每次使用都會標記它用過；
# 建置時，同一個小程式超過 HELPER_KEEP_DAYS 天沒用的執行檔（舊的原始碼、別的 clone）與中斷的建置留下的半成品會被刪掉。
# helper_bin prints the path of internal/cmd/NAME built; it builds again only when the sources, go.mod, the Go version
# or the repository's location changed, so later runs do not wait for go build. The binary lives in the per-user cache,
# named after a hash of those inputs. Each use marks the binary as used; a build removes the same helper's binaries unused
# for HELPER_KEEP_DAYS days (older sources, other clones) and half-written ones an interrupted build left behind.
helper_bin() {
  local name="$1" dir bin
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/informer-walkthrough/bin"
  bin="${dir}/${name}-$(helper_key)"
  if [[ -x "${bin}" ]]; then
    touch "${bin}" 2>/dev/null || true
  else
    mkdir -p "${dir}"
    find "${dir}" -maxdepth 1 -type f -name "${name}-*" \( -mtime "+${HELPER_KEEP_DAYS}" -o -name '*.tmp.*' -mmin +60 \) \
      -delete 2>/dev/null || true
    log "the ${name} helper is built once for each change to its sources"
    go_build "${REPO_ROOT}" "${bin}.tmp.$$" "the ${name} helper" "" "./internal/cmd/${name}"
    mv "${bin}.tmp.$$" "${bin}"
  fi
  printf '%s\n' "${bin}"
}

# 快取裡建好的步驟閒置超過幾天就刪掉；internal/testenv 的 stepsKeep 是同樣的天數。
# Days after which a built step in the cache that went unused is removed; internal/testenv's stepsKeep is the same.
STEPS_KEEP_DAYS="${STEPS_KEEP_DAYS:-14}"

# steps_build_dir 印出這個 clone 建好的步驟（一般的，沒有 race detector）放在哪裡：每個使用者的快取底下，以 repo 路徑的
# 雜湊區分 clone。internal/testenv 的 StepsBuildDir 用同樣的規則，步驟的測試與導覽因此共用同一批執行檔。
# steps_build_dir prints where this clone's built steps (plain ones, without the race detector) are kept: under the
# per-user cache, one directory per clone (a hash of the repository's path). internal/testenv's StepsBuildDir follows
# the same rule, so the steps' tests and the walkthrough share the same binaries.
steps_build_dir() {
  printf '%s/informer-walkthrough/steps/%s/plain\n' "${XDG_CACHE_HOME:-$HOME/.cache}" \
    "$(printf '%s' "${REPO_ROOT}" | sha256_of | cut -c 1-16)"
}

# build_step 建置一個步驟（目錄名稱，例如 step01-listwatcher）到 steps_build_dir，印出執行檔路徑。檔案已經是最新的時候，
# go build -o 不再連結，第二次起只要一秒左右。有 flock（Linux）時拿著檔案鎖，兩個同時的建置不會寫同一個檔；
# 超過 STEPS_KEEP_DAYS 天沒用的步驟（別的或舊的 clone）順手刪掉。
# build_step builds one step (its directory name, such as step01-listwatcher) into steps_build_dir and prints the
# binary's path. When the file there is already current, go build -o does not link again, so later runs take about a
# second. Where flock exists (Linux) it holds a file lock, so two builds at once never write the same file; steps
# unused for STEPS_KEEP_DAYS days (other or old clones) are removed on the way.
build_step() {
  local name="$1" dir
  dir="$(steps_build_dir)"
  mkdir -p "${dir}"
  if command -v flock >/dev/null 2>&1; then
    (cd "${REPO_ROOT}" && flock "${dir}/.lock" go build -o "${dir}/${name}" "./${name}")
  else
    (cd "${REPO_ROOT}" && go build -o "${dir}/${name}" "./${name}")
  fi
  touch "${dir}/${name}"
  find "${dir%/*/*}" -mindepth 3 -maxdepth 3 -type f -name 'step*' -mtime "+${STEPS_KEEP_DAYS}" -delete 2>/dev/null || true
  printf '%s\n' "${dir}/${name}"
}

# 建置時，進度訊息的間隔秒數。 / Seconds between progress lines while building.
PROGRESS_EVERY="${PROGRESS_EVERY:-20}"

# every_while 在背景行程 PID 還在執行時，每 PROGRESS_EVERY 秒執行一次其餘的參數（一個回報進度的指令）；
# 行程結束後，以它的結束碼回傳。go_build 與 build-kind-node-image.sh 都用它。
# every_while runs the remaining arguments (a command that reports progress) every PROGRESS_EVERY seconds while the
# background process PID runs, and returns with that process's exit status. go_build and build-kind-node-image.sh use it.
every_while() {
  local pid="$1"
  shift
  while kill -0 "${pid}" 2>/dev/null; do
    for _ in $(seq "${PROGRESS_EVERY}"); do
      kill -0 "${pid}" 2>/dev/null || break
      sleep 1
    done
    if kill -0 "${pid}" 2>/dev/null; then
      "$@"
    fi
  done
  wait "${pid}"
}

# go_build_progress 是 go_build 的進度訊息；用法：go_build_progress 標籤 log 檔 套件總數 開始時的 SECONDS。
# go_build_progress is go_build's progress line; usage: go_build_progress label logfile total SECONDS-at-start.
go_build_progress() {
  log "still building $1: $(grep -vc '^go: ' "$2" || true) of at most $3 packages compiled, $(seconds_since "$4") so far"
}

# go_build 在 DIR 裡執行 go build -v，並每 PROGRESS_EVERY 秒回報一次進度：編譯了幾個套件（總數來自
# go list -deps，快取裡已有的不必再編譯，所以實際常常少於總數）、花了多久。go build 本身會好幾分鐘都沒有輸出。
# 用法：go_build 目錄 輸出 標籤 ldflags 套件…；輸出以 / 結尾時是目錄（一次建置好幾個執行檔）。
# go_build runs go build -v in DIR and reports progress every PROGRESS_EVERY seconds: packages compiled out of
# the total (from go list -deps; those already in the build cache need no compiling, so fewer often do) and the
# time taken. go build itself stays silent for minutes.
# Usage: go_build dir output label ldflags package…; an output ending in / is a directory (several binaries at once).
go_build() {
  local dir="$1" out="$2" label="$3" ldflags="$4" started=${SECONDS} total logfile pid
  shift 4
  log "building ${label} ($*)"
  total="$(cd "${dir}" && go list -deps "$@" | grep -c .)" || die "go list -deps $* failed in ${dir}"
  logfile="$(mktemp)"
  (cd "${dir}" && exec go build -v -ldflags "${ldflags}" -o "${out}" "$@") 2>"${logfile}" &
  pid=$!
  # 被中斷時連同 go build 一起停下。 / When interrupted, stop the go build too.
  trap 'kill "${pid}" 2>/dev/null; rm -f "${logfile}"; exit 130' INT TERM
  if ! every_while "${pid}" go_build_progress "${label}" "${logfile}" "${total}" "${started}"; then
    trap - INT TERM
    tail -n 20 "${logfile}" >&2
    rm -f "${logfile}"
    die "building ${label} failed (its last lines are above)"
  fi
  trap - INT TERM
  rm -f "${logfile}"
  log "built ${label} in $(seconds_since "${started}")"
}

# docker_answers 在 Docker daemon 有回應時成功。 / docker_answers succeeds when a Docker daemon answers.
docker_answers() {
  command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1
}

# kind 透過 go.mod 的 tool 指令執行釘選版本的 kind。 / kind runs the pinned kind through go.mod's tool directive.
kind() {
  (cd "${REPO_ROOT}" && go tool kind "$@")
}

# process_alive 在 PID 檔裡的行程還活著時成功。 / process_alive succeeds while the process in the PID file lives.
process_alive() {
  local pidfile="$1" pid
  [[ -f "${pidfile}" ]] || return 1
  pid="$(cat "${pidfile}")"
  [[ -n "${pid}" ]] && kill -0 "${pid}" 2>/dev/null
}

# detach 以指令取代目前的（子）shell，並讓它脫離目前的終端機（有 setsid 就用，例如 Linux；否則用 nohup，例如 macOS）。
# 以 `detach cmd &` 呼叫：exec 讓 $! 就是指令本身的 PID，而不是包著它的子 shell。
# detach replaces the current (sub)shell with the command, detached from this terminal (setsid where it exists, as on Linux;
# nohup otherwise, as on macOS). Call it as `detach cmd &`: exec makes $! the command's own PID, not a wrapping subshell's.
detach() {
  if command -v setsid >/dev/null 2>&1; then
    exec setsid "$@"
  else
    exec nohup "$@"
  fi
}

# seconds_since 印出從某個 SECONDS 值到現在經過的時間，例如 2m05s。 / seconds_since prints the time since a SECONDS value, such as 2m05s.
seconds_since() {
  local s=$((SECONDS - $1))
  printf '%dm%02ds' $((s / 60)) $((s % 60))
}
