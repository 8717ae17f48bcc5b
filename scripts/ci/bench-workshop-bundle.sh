#!/usr/bin/env bash
# bench-workshop-bundle.sh：量測學員拿到工作坊離線包之後，到步驟 01 印出第一個事件要多久：解開、install、
# cluster-up.sh、bin/step01-listwatcher 看到一個新建的 Pod。每一輪都用全新的家目錄（Go 的快取是空的）、
# GOPROXY=off，以 root 執行時還在沒有網路的 network namespace 裡（只有 loopback）。目標是兩分鐘以內。
# Measure how long a participant with the workshop bundle takes to step 01's first event: unpack, install,
# cluster-up.sh, and bin/step01-listwatcher seeing a pod created. Every run uses a fresh home directory (Go's caches
# empty) and GOPROXY=off and, when run as root, a network namespace with no network (loopback only). The target is two
# minutes.
#
#   scripts/ci/bench-workshop-bundle.sh            builds this platform's bundle from the working tree, then three runs
#   scripts/ci/bench-workshop-bundle.sh ARCHIVE    an archive built already
#   RUNS=1 scripts/ci/bench-workshop-bundle.sh     one run (scripts/test.sh does this)
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# 量幾次。 / How many runs.
RUNS="${RUNS:-3}"
# 目標（秒）：中位數超過它就失敗。 / The target in seconds: a median above it fails.
TARGET="${TARGET:-120}"

WORK=""

cleanup() {
  [[ -z "${WORK}" ]] || remove_tree "${WORK}"
}

# netns 在能為每一輪開一個沒有網路的 network namespace 時成功（Linux 上的 root，有 unshare 與 ip）。
# netns succeeds when each run can have a network namespace with no network (root on Linux, with unshare and ip).
netns() {
  [[ "$(id -u)" == 0 && "$(uname -s)" == Linux ]] && command -v unshare >/dev/null && command -v ip >/dev/null
}

# wait_for_line 等到檔案 $1 裡有符合 $2 的一行，最多 $3 秒。 / wait_for_line waits until file $1 has a line matching $2, for at most $3 seconds.
wait_for_line() {
  local deadline=$((SECONDS + $3))
  until grep -q "$2" "$1" 2>/dev/null; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

# participant 是學員那一邊，在全新的家目錄裡、乾淨的環境下執行：印出每個階段的毫秒數，一行一個。
# participant is the participant's side, run in a fresh home directory and a clean environment: it prints each
# phase's milliseconds, one line each.
participant() {
  local archive="$1" t0 t1 t2 t3 t4 pid
  if [[ "${2:-}" == netns ]]; then
    ip link set lo up
  fi
  cd "${HOME}"
  t0="$(now_ms)"
  tar -xzf "${archive}"
  t1="$(now_ms)"
  informer-walkthrough/scripts/workshop-bundle.sh install
  t2="$(now_ms)"
  cd informer-walkthrough
  # 失敗時也要停掉叢集與步驟，不留下任何行程。 / Stop the cluster and the step on failure too, leaving nothing running.
  trap '[[ -z "${pid:-}" ]] || kill "${pid}" 2>/dev/null; scripts/cluster-down.sh >/dev/null 2>&1 || true' EXIT
  CLUSTER=local scripts/cluster-up.sh
  t3="$(now_ms)"
  bin/step01-listwatcher >"${HOME}/step01.out" 2>&1 &
  pid=$!
  wait_for_line "${HOME}/step01.out" 'watching from there' 30 || die "step 01 did not list: $(tail -n 3 "${HOME}/step01.out")"
  scripts/scene.sh create first app=demo
  wait_for_line "${HOME}/step01.out" '^watch  *ADDED  *default/first' 30 || die "step 01 saw no ADDED: $(tail -n 3 "${HOME}/step01.out")"
  t4="$(now_ms)"
  printf 'phase unpack %d\nphase install %d\nphase cluster-up %d\nphase step01 %d\n' \
    $((t1 - t0)) $((t2 - t1)) $((t3 - t2)) $((t4 - t3))
  # 模組齊全：沒有網路也能載入每個套件與它的測試需要的一切（不計時）。
  # The modules are complete: every package and what its tests need load with no network (not timed).
  go list -deps -test ./... tool >/dev/null || die "the bundle's modules do not cover go list -deps -test ./... tool"
}

# run_once 以全新的家目錄與乾淨的環境執行 participant 一次，印出它的階段。 / run_once runs participant once with a fresh home and a clean environment, printing its phases.
run_once() {
  local archive="$1" home wrap=()
  home="$(mktemp -d "${WORK}/home.XXXXXX")"
  mkdir -p "${home}/tmp"
  if netns; then
    wrap=(unshare --net --)
  fi
  local status=0
  env -i PATH="$(dirname "$(command -v go)"):/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" HOME="${home}" \
    TMPDIR="${home}/tmp" LANG=C.UTF-8 GOPROXY=off GOTOOLCHAIN=local \
    "${wrap[@]}" "${BASH_SOURCE[0]}" --participant "${archive}" "${wrap:+netns}" || status=$?
  remove_tree "${home}"
  return "${status}"
}

main() {
  if [[ "${1:-}" == --participant ]]; then
    shift
    participant "$@"
    return
  fi
  [[ "${RUNS}" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number, not '${RUNS}'"
  [[ "${TARGET}" =~ ^[1-9][0-9]*$ ]] || die "TARGET must be a number of seconds, not '${TARGET}'"
  trap cleanup EXIT
  WORK="$(mktemp -d)"
  local archive="${1:-}"
  if [[ -z "${archive}" ]]; then
    log "building this machine's bundle ($(host_platform)) first"
    "${REPO_ROOT}/scripts/workshop-bundle.sh" build --worktree --out "${WORK}" "$(host_platform)"
    archive="${WORK}/informer-walkthrough-workshop-$(host_platform | tr / -).tar.gz"
  fi
  [[ -f "${archive}" ]] || die "no such archive: ${archive}"
  archive="$(cd "$(dirname "${archive}")" && pwd -P)/$(basename "${archive}")"
  if netns; then
    log "each run: a fresh home, GOPROXY=off, and a network namespace with loopback only"
  else
    log "each run: a fresh home and GOPROXY=off (not root on Linux, so no network namespace: the network stays reachable)"
  fi
  local i out totals=() total
  for ((i = 1; i <= RUNS; i++)); do
    out="$(run_once "${archive}" 2>"${WORK}/run.log")" || {
      cat "${WORK}/run.log" >&2
      die "run ${i} failed (above)"
    }
    total="$(awk '$1 == "phase" { s += $3 } END { print s }' <<<"${out}")"
    totals+=("${total}")
    printf 'run %d: %s ms in all (%s)\n' "${i}" "${total}" \
      "$(awk '$1 == "phase" { printf "%s%s %.1f s", sep, $2, $3 / 1000; sep = ", " }' <<<"${out}")"
  done
  local median
  median="$(printf '%s\n' "${totals[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
  printf 'median: %d ms from the archive to step 01'"'"'s first event, %d runs (target %d s)\n' "${median}" "${RUNS}" "${TARGET}"
  ((median <= TARGET * 1000)) || die "the median is over the ${TARGET} s target"
}

main "$@"
