#!/usr/bin/env bash
# restart-apiserver.sh：重新啟動練習叢集的 kube-apiserver，etcd 保留不動。執行中的步驟會看到
# watch 中斷、重新連線、從舊的 resourceVersion 開始的 watch 得到 410，然後重新 List。
# Restart the practice cluster's kube-apiserver, leaving etcd alone. A running step sees its watch end, reconnects,
# gets a 410 for a watch from the old resourceVersion, and lists again.
#
#   scripts/restart-apiserver.sh                           restart it
#   scripts/restart-apiserver.sh --delete demo             also delete pod "demo" while it is down (local cluster only)
#   scripts/restart-apiserver.sh --delete configmap/doomed any namespaced object, KIND/NAME as kubectl spells it
#   scripts/restart-apiserver.sh -n NS --delete demo       the object's namespace (default: default)
#
# 停機期間刪掉的物件，你的 informer 只能從重新 List 得知：處理函式收到的是墓碑（tombstone）。
# An object deleted during the outage is known to your informer only from the relist: its handler gets a tombstone.
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# kind 上等待 kube-apiserver 回來的上限（秒）。 / On kind, how long to wait for kube-apiserver to come back, in seconds.
READY_TIMEOUT="${READY_TIMEOUT:-120}"

USAGE="usage: scripts/restart-apiserver.sh [-n NAMESPACE] [--delete [KIND/]NAME]"

usage() {
  die "${USAGE}"
}

# 1. local：請 localcluster 換掉 kube-apiserver；停機期間由同一個 etcd 上的第二個 API server 刪除物件。
# 1. local: ask localcluster to replace kube-apiserver; during the outage the second API server on the same etcd deletes the object.
restart_local() {
  process_alive "${STATE_DIR}/localcluster.pid" ||
    die "the local cluster '${CLUSTER_NAME}' is not running; start it with scripts/cluster-up.sh"
  "${STATE_DIR}/localcluster" restart --dir "${STATE_DIR}" -n "$1" --delete "$2"
}

# 2. kind：停掉節點裡的 kube-apiserver container；kubelet 會把這個 static Pod 再啟動起來。
# 2. kind: stop the kube-apiserver container in the node; the kubelet starts the static pod again.
restart_kind() {
  [[ -z "$2" ]] || die "--delete needs the local cluster: on kind nothing else serves the API while kube-apiserver is down"
  local node="${CLUSTER_NAME}-control-plane" started=${SECONDS}
  log "stopping the kube-apiserver container in ${node}; the kubelet starts it again"
  docker exec "${node}" sh -c 'crictl stop $(crictl ps -q --name kube-apiserver)' >/dev/null
  until docker exec "${node}" sh -c 'kubectl --kubeconfig /etc/kubernetes/admin.conf get --raw /readyz' >/dev/null 2>&1; do
    ((SECONDS - started < READY_TIMEOUT)) || die "kube-apiserver was not ready again after ${READY_TIMEOUT}s"
    sleep 0.5
  done
  log "kube-apiserver is back after $(seconds_since "${started}")"
}

main() {
  local namespace=default pod=""
  while (($# > 0)); do
    case "$1" in
    -n | --namespace)
      (($# >= 2)) || usage
      namespace="$2"
      shift 2
      ;;
    --delete)
      (($# >= 2)) || usage
      pod="$2"
      shift 2
      ;;
    -h | --help)
      printf '%s\n' "${USAGE}"
      return
      ;;
    *) usage ;;
    esac
  done
  [[ -f "${STATE_DIR}/cluster" ]] || die "no cluster named '${CLUSTER_NAME}' is up; start it with scripts/cluster-up.sh"
  case "$(cat "${STATE_DIR}/cluster")" in
  kind) restart_kind "${namespace}" "${pod}" ;;
  *) restart_local "${namespace}" "${pod}" ;;
  esac
}

main "$@"
