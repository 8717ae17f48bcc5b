#!/usr/bin/env bash
# cluster-up.sh：建立練習用叢集，並把它設為 kubectl 目前的 context。
# Create the practice cluster and make it kubectl's current context.
#
#   scripts/cluster-up.sh                 kind when a Docker daemon answers and its node image can be had, else the local control plane
#   CLUSTER=local scripts/cluster-up.sh   real etcd, kube-apiserver, controller-manager and scheduler + kwok's fake node on 127.0.0.1, no Docker needed
#   CLUSTER=kind scripts/cluster-up.sh    a kind cluster (needs Docker); KIND_NODE_IMAGE=... for another node image,
#                                         such as the one scripts/ci/build-kind-node-image.sh builds without a registry
#
# 重複執行是安全的：叢集已經在跑時只會確認 context，什麼都不重建。
# Safe to run twice: when the cluster is already up it only checks the context and rebuilds nothing.
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
CLUSTER="${CLUSTER:-auto}"
# 本機 kube-apiserver 的埠；0 表示挑一個空閒的。 / The local kube-apiserver's port; 0 picks a free one.
LOCAL_PORT="${LOCAL_PORT:-0}"
# 等待 API server 就緒的上限（秒）。 / How long to wait for the API server to be ready, in seconds.
READY_TIMEOUT="${READY_TIMEOUT:-120}"
# kind 等待控制平面節點就緒的時間。 / How long kind waits for the control-plane node.
KIND_WAIT="${KIND_WAIT:-180s}"
# 拉 kind 節點映像檔最多等多久（秒）。 / How long pulling kind's node image may take, in seconds.
PULL_TIMEOUT="${PULL_TIMEOUT:-600}"
# 失敗時最後一行建議重新執行的指令（walkthrough.sh 把它設成自己）。 / The command a failure's last line suggests running again (walkthrough.sh sets itself).
RERUN="${RERUN:-scripts/cluster-up.sh}"

# 1. 決定要用哪一種叢集，並說明原因。 / 1. Decide which cluster to use, and say why.
choose_cluster() {
  case "${CLUSTER}" in
  local | kind)
    log "CLUSTER=${CLUSTER} was asked for"
    printf '%s\n' "${CLUSTER}"
    ;;
  auto)
    # 這個名字的叢集已經在了（不論哪一種），就用它：例如本機叢集起來之後 Docker 才啟動。
    # A cluster of this name is already there (whichever kind): use it; say, Docker started after a local cluster came up.
    if [[ -f "${STATE_DIR}/cluster" ]]; then
      log "a $(cat "${STATE_DIR}/cluster") cluster named '${CLUSTER_NAME}' is already there, so using it (scripts/cluster-down.sh first to choose again)"
      cat "${STATE_DIR}/cluster"
    elif docker_answers; then
      # Docker 有回應還不夠：kind 的節點映像檔要拿得到（已經在 daemon 裡，或拉得下來）。拿不到（例如沒有 registry
      # 回應）就退回本機叢集，並說一行原因，而不是讓 kind 在幾分鐘之後失敗。
      # A Docker daemon answering is not enough: kind's node image must be at hand (in the daemon, or pullable). When
      # it is not (no registry answers, say), fall back to the local cluster, saying why in one line, rather than let
      # kind fail minutes later.
      local why
      if why="$(kind_image_available)"; then
        log "a Docker daemon answers and kind's node image is at hand, so using kind (set CLUSTER=local for the local control plane)"
        printf 'kind\n'
      else
        log "a Docker daemon answers, but kind's node image cannot be had here (${why}), so using the local cluster instead (CLUSTER=kind to insist)"
        printf 'local\n'
      fi
    else
      log "no Docker daemon answers, so using the local cluster (real control plane + a kwok node on 127.0.0.1)"
      printf 'local\n'
    fi
    ;;
  *) die "CLUSTER must be local, kind or auto, not '${CLUSTER}'" ;;
  esac
}

# kind_image_available 在節點映像檔已經在 daemon 裡、或拉得下來時成功；拉不下來時失敗，並在 stdout 寫出原因（一行）。
# kind_image_available succeeds when the node image is in the daemon or can be pulled; when it cannot, it fails and
# writes why on stdout (one line).
kind_image_available() {
  docker image inspect "${KIND_NODE_IMAGE}" >/dev/null 2>&1 && return
  log "pulling ${KIND_NODE_IMAGE} (once)"
  local out
  if ! out="$(timeout "${PULL_TIMEOUT}" docker pull --quiet "${KIND_NODE_IMAGE}" 2>&1)"; then
    printf '%s\n' "$(printf '%s' "${out:-no answer in ${PULL_TIMEOUT}s}" | tail -n 1)"
    return 1
  fi
}

# kind_image_ready 跟 kind_image_available 一樣，但拿不到時停下，說怎麼辦。
# kind_image_ready is kind_image_available, but stops when the image cannot be had, saying what to do.
kind_image_ready() {
  local why
  why="$(kind_image_available)" ||
    die "cannot pull ${KIND_NODE_IMAGE}: ${why}; without a registry, build one as root (KIND_NODE_IMAGE=\$(scripts/ci/build-kind-node-image.sh | tail -n 1)), or use the local cluster, which needs no image: CLUSTER=local ${RERUN}"
}

# 2a. kind：以節點映像檔建立叢集（預設是 kind 以 digest 釘選的上游映像檔）；kind 自己會寫入 context 並設為目前的 context。
# 2a. kind: create the cluster from the node image (by default the upstream one kind pins by digest); kind writes the context and makes it current itself.
up_kind() {
  command -v docker >/dev/null 2>&1 ||
    die "CLUSTER=kind needs Docker, and docker is not installed; the local cluster needs no Docker: CLUSTER=local ${RERUN}"
  docker info >/dev/null 2>&1 ||
    die "CLUSTER=kind needs Docker, and the Docker daemon does not answer (is it running, and may this user use it?); the local cluster needs no Docker: CLUSTER=local ${RERUN}"
  if kind get clusters 2>/dev/null | grep -qx "${CLUSTER_NAME}"; then
    log "kind cluster '${CLUSTER_NAME}' is already up; making context ${KIND_CONTEXT} current"
    kind export kubeconfig --name "${CLUSTER_NAME}"
  else
    kind_image_ready
    local started=${SECONDS} args=(--name "${CLUSTER_NAME}" --image "${KIND_NODE_IMAGE}" --wait "${KIND_WAIT}")
    log "creating kind cluster '${CLUSTER_NAME}' from ${KIND_NODE_IMAGE}"
    if [[ "$(docker info --format '{{.CgroupVersion}}')" == 1 ]]; then
      # kubelet v1.35 起預設拒絕 cgroup v1 的主機（failCgroupV1: true）；只有這種主機才需要這份設定。
      # Since v1.35 the kubelet refuses a cgroup v1 host by default (failCgroupV1: true); only such a host needs this config.
      log "the Docker host uses cgroup v1, which the kubelet accepts only with failCgroupV1: false, so the cluster gets that setting"
      kind create cluster "${args[@]}" --config - <<'EOF' || die "kind could not create the cluster (see above); the local cluster needs no Docker: CLUSTER=local ${RERUN}"
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
kubeadmConfigPatches:
- |
  kind: KubeletConfiguration
  failCgroupV1: false
EOF
    else
      kind create cluster "${args[@]}" || die "kind could not create the cluster (see above); the local cluster needs no Docker: CLUSTER=local ${RERUN}"
    fi
    log "kind cluster '${CLUSTER_NAME}' ready after $(seconds_since "${started}")"
  fi
  mkdir -p "${STATE_DIR}"
  printf 'kind\n' >"${STATE_DIR}/cluster"
}

localcluster() {
  "${STATE_DIR}/localcluster" "$@"
}

# 2b. local：在背景啟動 localcluster（它再啟動控制平面、kwok 與假節點），等到它寫出 kubeconfig、/readyz 回應 ok。
# 2b. local: start localcluster in the background (it starts the control plane, kwok and the fake node), then wait until it has written the kubeconfig and /readyz answers ok.
up_local() {
  if process_alive "${STATE_DIR}/localcluster.pid" && localcluster ready --dir "${STATE_DIR}" 2>/dev/null; then
    log "local cluster is already up; nothing to do"
    localcluster use --dir "${STATE_DIR}" --name "${LOCAL_CONTEXT}"
    return
  fi
  if [[ -e "${STATE_DIR}" ]]; then
    log "cleaning up what an earlier local cluster left in ${STATE_DIR}"
    "${REPO_ROOT}/scripts/cluster-down.sh" >/dev/null
  fi

  "${REPO_ROOT}/scripts/build-controlplane.sh"
  mkdir -p "${STATE_DIR}"
  chmod 0700 "${STATE_DIR}"
  local helper
  helper="$(helper_bin localcluster)"
  cp "${helper}" "${STATE_DIR}/localcluster"
  printf 'local\n' >"${STATE_DIR}/cluster"

  local started=${SECONDS}
  log "starting etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok (log: ${STATE_DIR}/localcluster.log)"
  # detach：讓叢集脫離目前的終端機，關掉終端機也不會把它停掉；由 cluster-down.sh 負責停止。
  # detach: the cluster leaves this terminal, so closing the terminal does not stop it; cluster-down.sh does.
  # TMPDIR 指向狀態目錄：envtest 的暫存檔也放在那裡，cluster-down.sh 刪除狀態目錄時一併清掉，即使行程是被強制結束的。
  # TMPDIR points into the state directory: envtest's temporary files land there too, and cluster-down.sh removes them with it, even after a forced stop.
  mkdir -p "${STATE_DIR}/tmp"
  TMPDIR="${STATE_DIR}/tmp" detach "${STATE_DIR}/localcluster" serve --dir "${STATE_DIR}" --port "${LOCAL_PORT}" --name "${LOCAL_CONTEXT}" \
    >"${STATE_DIR}/localcluster.log" 2>&1 </dev/null &
  printf '%s\n' "$!" >"${STATE_DIR}/localcluster.pid"

  # 先看 log 檔裡的就緒訊息（成本低），出現了再用 localcluster ready 確認一次。
  # Watch the log for the ready line first (cheap), then confirm once with localcluster ready.
  until grep -q '^localcluster: kube-apiserver ready at' "${STATE_DIR}/localcluster.log" 2>/dev/null &&
    localcluster ready --dir "${STATE_DIR}" 2>/dev/null; do
    if ! process_alive "${STATE_DIR}/localcluster.pid"; then
      local reason
      reason="$(grep -m1 '^localcluster: ' "${STATE_DIR}/localcluster.log" || tail -n 1 "${STATE_DIR}/localcluster.log")"
      "${REPO_ROOT}/scripts/cluster-down.sh" >/dev/null
      die "the local cluster did not start: ${reason#localcluster: }"
    fi
    if ((SECONDS - started > READY_TIMEOUT)); then
      "${REPO_ROOT}/scripts/cluster-down.sh" >/dev/null
      die "the local cluster was not ready after ${READY_TIMEOUT}s"
    fi
    sleep 0.1
  done
  log "local cluster ready at $(grep -o 'https://[^ ,]*' "${STATE_DIR}/localcluster.log" | head -n 1), node kwok-node-0 Ready, after $(seconds_since "${started}")"
  localcluster use --dir "${STATE_DIR}" --name "${LOCAL_CONTEXT}"
}

main() {
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  local kind_of
  kind_of="$(choose_cluster)"
  if [[ -f "${STATE_DIR}/cluster" && "$(cat "${STATE_DIR}/cluster")" != "${kind_of}" ]]; then
    die "a $(cat "${STATE_DIR}/cluster") cluster named '${CLUSTER_NAME}' is already up; run ${DOWN} first"
  fi
  case "${kind_of}" in
  kind) up_kind ;;
  local) up_local ;;
  esac
  log "ready: try 'go run ./step01-listwatcher' (and '${DOWN}' when you are done)"
}

main "$@"
