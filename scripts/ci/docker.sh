#!/usr/bin/env bash
# docker.sh：只給 CI 與同類機器用（見 scripts/ci/docker/README.md）。以 root 啟動一個 Docker daemon，之後只停掉自己啟動的那一個。
# For CI and machines like it only (see scripts/ci/docker/README.md): start a Docker daemon as root, and later stop exactly the one it started.
#
#   sudo scripts/ci/docker.sh start   install Debian's docker.io when dockerd is missing, start dockerd, wait until it answers
#   sudo scripts/ci/docker.sh stop    stop the dockerd that start started (its containerd goes with it); nothing else
#
# 已經有 daemon 回應時，start 什麼都不做，stop 也就不會去動它。 / When a daemon already answers, start does nothing, so stop leaves that daemon alone.
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# log 與 PID 檔的目錄。 / Where the log and the PID file go.
CI_DOCKER_DIR="${CI_DOCKER_DIR:-/run/informer-walkthrough-ci-docker}"
# 等待 daemon 回應，以及等待它結束的上限（秒）。 / How long to wait for the daemon to answer, and to exit (seconds).
CI_DOCKER_TIMEOUT="${CI_DOCKER_TIMEOUT:-60}"

PIDFILE="${CI_DOCKER_DIR}/dockerd.pid"
WRAPPER="${REPO_ROOT}/scripts/ci/docker/runc-capbnd-wrapper"

# caps_missing 在這個行程的能力邊界集合少了核心認得的能力時成功。
# caps_missing succeeds when this process's capability bounding set lacks a capability the kernel knows.
caps_missing() {
  local bounding last
  bounding=$((16#$(awk '$1 == "CapBnd:" { print $2 }' /proc/self/status)))
  last="$(cat /proc/sys/kernel/cap_last_cap)"
  ((bounding != (1 << (last + 1)) - 1))
}

start() {
  if docker_answers; then
    log "a Docker daemon already answers; nothing to start (and stop will leave it alone)"
    return
  fi
  [[ "$(id -u)" == 0 ]] || die "starting dockerd needs root: sudo $0 start"
  if ! command -v dockerd >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || die "dockerd is missing and there is no apt-get to install Debian's docker.io with"
    log "installing Debian's docker.io and jq"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io jq >/dev/null
  fi
  mkdir -p "${CI_DOCKER_DIR}"
  local args=(
    # docker 內建的 DNS（kind 的網路用它）把不認得的名稱轉給這個位址：主機自己的 docker0，那裡沒有任何服務在接聽，
    # 所以節點與 Pod 的查詢不會離開這台機器（這裡對外的名稱本來就查不到）。
    # Docker's embedded DNS (kind's network uses it) forwards names it does not know to this address: the host's own
    # docker0, where nothing listens, so lookups from nodes and pods never leave this machine (outside names do not resolve here anyway).
    --dns 172.17.0.1
  )
  if caps_missing; then
    log "this machine's capability bounding set is incomplete ($(awk '$1 == "CapBnd:" { print $2 }' /proc/self/status)), so containers run through ${WRAPPER#"${REPO_ROOT}/"}"
    args+=(--add-runtime "capbnd=${WRAPPER}" --default-runtime capbnd)
  fi
  log "starting dockerd (log: ${CI_DOCKER_DIR}/dockerd.log)"
  detach dockerd "${args[@]}" >"${CI_DOCKER_DIR}/dockerd.log" 2>&1 </dev/null &
  printf '%s\n' "$!" >"${PIDFILE}"
  local started=${SECONDS}
  until docker_answers; do
    if ! process_alive "${PIDFILE}"; then
      rm -f "${PIDFILE}"
      die "dockerd exited: $(tail -n 1 "${CI_DOCKER_DIR}/dockerd.log")"
    fi
    if ((SECONDS - started > CI_DOCKER_TIMEOUT)); then
      stop >/dev/null 2>&1 || true
      die "dockerd did not answer within ${CI_DOCKER_TIMEOUT}s (see ${CI_DOCKER_DIR}/dockerd.log)"
    fi
    sleep 0.2
  done
  log "dockerd $(docker version --format '{{.Server.Version}}') answers (pid $(cat "${PIDFILE}"), after $(seconds_since "${started}"))"
}

stop() {
  if ! process_alive "${PIDFILE}"; then
    rm -f "${PIDFILE}"
    log "no dockerd started by this script is running; nothing to stop"
    return
  fi
  local pid started=${SECONDS} containerd
  pid="$(cat "${PIDFILE}")"
  # dockerd 自己帶起的 containerd 是它的子行程；dockerd 結束時會停掉它，這裡再確認一次。
  # The containerd dockerd brought up itself is its child; dockerd stops it on exit, and this checks that it did.
  containerd="$(pgrep -P "${pid}" -x containerd || true)"
  log "stopping dockerd (pid ${pid})"
  kill -TERM "${pid}"
  while kill -0 "${pid}" 2>/dev/null || { [[ -n "${containerd}" ]] && kill -0 "${containerd}" 2>/dev/null; }; do
    if ((SECONDS - started > CI_DOCKER_TIMEOUT)); then
      log "dockerd is still running after ${CI_DOCKER_TIMEOUT}s; sending SIGKILL"
      kill -KILL "${pid}" ${containerd:+"${containerd}"} 2>/dev/null || true
    fi
    sleep 0.2
  done
  rm -f "${PIDFILE}"
  log "stopped dockerd after $(seconds_since "${started}")"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*) die "usage: $0 start|stop" ;;
esac
