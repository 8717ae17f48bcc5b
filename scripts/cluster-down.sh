#!/usr/bin/env bash
# cluster-down.sh：停止 cluster-up.sh 建立的叢集、移除它的 context，不留下任何行程或暫存目錄。
# Stop the cluster cluster-up.sh created and remove its context, leaving no process or temporary directory behind.
# 沒有叢集在跑時執行也無妨。 / Harmless when nothing runs.
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# 等待行程在 SIGTERM 後自行結束的秒數，之後改送 SIGKILL。kube-apiserver 常要 7 秒以上。
# Seconds to wait for processes to exit after SIGTERM before SIGKILL; kube-apiserver often takes more than 7.
STOP_TIMEOUT="${STOP_TIMEOUT:-45}"

# wait_gone 等待符合條件的行程消失，最多 STOP_TIMEOUT 秒；逾時則失敗。
# wait_gone waits up to STOP_TIMEOUT seconds for the matching processes to exit; it fails on timeout.
wait_gone() {
  local started=${SECONDS}
  while pgrep -f -- "$1" >/dev/null; do
    ((SECONDS - started < STOP_TIMEOUT)) || return 1
    sleep 0.2
  done
}

# ere_quote 把字串跳脫成擴充正規表示式（pgrep 用的）裡的字面文字。
# ere_quote escapes a string into literal text for an extended regular expression (what pgrep takes).
ere_quote() {
  printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'
}

# 1. kind：刪除叢集；kind 會一併移除它寫入的 context。 / 1. kind: delete the cluster; kind removes the context it wrote.
down_kind() {
  if ! docker_answers; then
    log "Docker does not answer, so the kind cluster '${CLUSTER_NAME}' cannot be deleted now; start Docker and run this again"
    return 1
  fi
  kind delete cluster --name "${CLUSTER_NAME}"
  local left
  left="$(docker ps -a --quiet --filter "label=io.x-k8s.kind.cluster=${CLUSTER_NAME}")"
  [[ -z "${left}" ]] || die "kind left containers of '${CLUSTER_NAME}' behind: ${left//$'\n'/ }"
}

# 2. local：先請 localcluster 自己收尾（它會停掉 kube-apiserver 與 etcd），逾時再強制結束。
# 2. local: ask localcluster to shut down on its own (it stops kube-apiserver and etcd), then force what remains after the timeout.
down_local() {
  local pidfile="${STATE_DIR}/localcluster.pid"
  if process_alive "${pidfile}"; then
    log "stopping the local cluster (kube-apiserver may take several seconds)"
    kill -TERM "$(cat "${pidfile}")"
  fi
  # etcd 與 kube-apiserver 的命令列都有一個參數以狀態目錄的路徑開頭（或在 = 之後），用它找出所有相關行程。
  # 路徑先跳脫成字面文字：像 ~/.cache 裡的 . 這樣的字元，在 pgrep 的正規表示式裡會比對任何字元。
  # etcd's and kube-apiserver's command lines each have an argument that starts with the state directory (or has it
  # after an =), which finds every process involved. The path is escaped into literal text first: a character such
  # as the . in ~/.cache would match any character in pgrep's regular expression.
  local ours
  ours="(^|[ =])$(ere_quote "${STATE_DIR}")/"
  if ! wait_gone "${ours}"; then
    log "processes still running after ${STOP_TIMEOUT}s; sending SIGKILL"
    pkill -KILL -f -- "${ours}" || true
    wait_gone "${ours}" || die "could not stop processes $(pgrep -f -- "${ours}" | tr '\n' ' ')"
  fi
  if [[ -x "${STATE_DIR}/localcluster" ]]; then
    "${STATE_DIR}/localcluster" forget --name "${LOCAL_CONTEXT}"
  fi
}

main() {
  if [[ ! -e "${STATE_DIR}" ]]; then
    log "no cluster named '${CLUSTER_NAME}' is up; nothing to do"
    return
  fi
  case "$(cat "${STATE_DIR}/cluster" 2>/dev/null || echo local)" in
  kind) down_kind ;;
  *) down_local ;;
  esac
  rm -rf "${STATE_DIR}"
  log "stopped '${CLUSTER_NAME}' and removed ${STATE_DIR}"
}

main "$@"
