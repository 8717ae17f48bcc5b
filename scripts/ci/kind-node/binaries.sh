# shellcheck shell=bash
# binaries.sh：建置需要的工具，以及節點裡的每個執行檔（建置步驟 1 到 3）。
# binaries.sh: the tools building needs, and every executable in the node (build steps 1 to 3).
# 由 scripts/ci/build-kind-node-image.sh source，使用它的設定與 WORK 目錄；不單獨執行。
# Sourced by scripts/ci/build-kind-node-image.sh, using its settings and WORK directory; not run on its own.

# with_progress 執行一個長指令，每 PROGRESS_EVERY 秒說一次它跑了多久；失敗時印出它最後幾行輸出。
# with_progress runs a long command and says every PROGRESS_EVERY seconds how long it has run; on failure it prints its last lines.
with_progress() {
  local label="$1" started=${SECONDS} logfile pid
  shift
  logfile="${WORK}/$(printf '%s' "${label}" | tr -c 'a-zA-Z0-9' '-').log"
  "$@" >"${logfile}" 2>&1 &
  pid=$!
  if ! every_while "${pid}" with_progress_line "${label}" "${started}"; then
    tail -n 20 "${logfile}" >&2
    die "${label} failed (its last lines are above)"
  fi
  log "done ${label} in $(seconds_since "${started}")"
}

# with_progress_line 是 with_progress 的進度訊息；用法：with_progress_line 標籤 開始時的 SECONDS。
# with_progress_line is with_progress's progress line; usage: with_progress_line label SECONDS-at-start.
with_progress_line() {
  log "still $1, $(seconds_since "$2") so far"
}

# 1. 建置需要的工具；以 root 在 Debian 上缺什麼就裝什麼。 / 1. The tools building needs; as root on Debian, install what is missing.
ensure_build_tools() {
  [[ "$(id -u)" == 0 ]] ||
    die "building the node image needs root (debootstrap and chroot): sudo $0, or load an image saved elsewhere with docker load"
  local missing=()
  command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
  command -v gcc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
  command -v jq >/dev/null 2>&1 || missing+=(jq)
  command -v zstd >/dev/null 2>&1 || missing+=(zstd)
  if [[ ! -x /bin/busybox ]] || ! file_is_static /bin/busybox; then missing+=(busybox-static); fi
  pkg-config --exists libseccomp 2>/dev/null || missing+=(pkg-config libseccomp-dev)
  ((${#missing[@]} == 0)) && return
  command -v apt-get >/dev/null 2>&1 || die "install these first: ${missing[*]}"
  phase "installing ${missing[*]} from Debian's packages"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# module_dir 印出模組在模組快取裡的目錄（用法：module_dir <repo 裡的模組目錄> <模組>），還沒下載就先下載：
# go list -m 對還沒下載的模組只印出空字串。
# module_dir prints a module's directory in the module cache (usage: module_dir <module dir in the repo> <module>),
# downloading it first when needed: go list -m prints an empty string for a module not downloaded yet.
module_dir() {
  local dir
  dir="$(cd "${REPO_ROOT}/$1" && go mod download "$2" && go list -m -f '{{.Dir}}' "$2")" || die "cannot download $2"
  [[ -d "${dir}" ]] || die "no directory for $2 in the module cache"
  printf '%s\n' "${dir}"
}

# file_is_static 在執行檔不需要動態連結器時成功。 / file_is_static succeeds when the executable needs no dynamic loader.
file_is_static() {
  ! ldd "$1" >/dev/null 2>&1
}

# 2. 執行檔。Kubernetes 的控制平面與 etcd 沿用本機叢集建好的；kubeadm、kubelet、kubectl、kube-proxy
#    由同一個模組、同一份建置快取建出。其餘以 go install 模組@版本 建置，用的是各自上游的 go.mod。
# 2. Binaries. Kubernetes' control plane and etcd are the ones the local cluster built; kubeadm, kubelet, kubectl and
#    kube-proxy come from the same module and build cache. The rest are go install module@version, each with its own
#    upstream go.mod.
build_binaries() {
  local out="${WORK}/bin" cp
  mkdir -p "${out}/cni"
  "${REPO_ROOT}/scripts/build-controlplane.sh"
  cp="$(controlplane_bin_dir)"
  cp "${cp}/etcd" "${cp}/kube-apiserver" "${cp}/kube-controller-manager" "${cp}/kube-scheduler" "${out}/"
  go_build "${REPO_ROOT}/scripts/controlplane" "${out}/" "kubeadm, kubelet, kubectl and kube-proxy" "-s -w $(kube_version_ldflags)" \
    k8s.io/kubernetes/cmd/kubeadm k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl k8s.io/kubernetes/cmd/kube-proxy

  # containerd 與 runc 用 kind 的 base 映像檔同樣的 build tag；runc 需要 cgo 與 libseccomp。
  # containerd and runc use the build tags of kind's base image; runc needs cgo and libseccomp.
  with_progress "building containerd ${CONTAINERD_VERSION}" env CGO_ENABLED=0 GOBIN="${out}" go install -trimpath \
    -tags "no_aufs no_zfs no_btrfs no_devmapper" \
    -ldflags "-s -w -X github.com/containerd/containerd/v2/version.Version=${CONTAINERD_VERSION}" \
    "github.com/containerd/containerd/v2/cmd/containerd@${CONTAINERD_VERSION}" \
    "github.com/containerd/containerd/v2/cmd/ctr@${CONTAINERD_VERSION}" \
    "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@${CONTAINERD_VERSION}"
  with_progress "building runc ${RUNC_VERSION}" env CGO_ENABLED=1 GOBIN="${out}" go install -trimpath \
    -tags "seccomp urfave_cli_no_docs" -ldflags "-s -w" "github.com/opencontainers/runc@${RUNC_VERSION}"
  with_progress "building crictl ${CRICTL_VERSION}" env CGO_ENABLED=0 GOBIN="${out}" go install -trimpath \
    -ldflags "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=${CRICTL_VERSION}" \
    "sigs.k8s.io/cri-tools/cmd/crictl@${CRICTL_VERSION}"
  with_progress "building the CNI plugins ${CNI_PLUGINS_VERSION}" env CGO_ENABLED=0 GOBIN="${out}/cni" go install -trimpath \
    -ldflags "-s -w" \
    "github.com/containernetworking/plugins/plugins/ipam/host-local@${CNI_PLUGINS_VERSION}" \
    "github.com/containernetworking/plugins/plugins/main/loopback@${CNI_PLUGINS_VERSION}" \
    "github.com/containernetworking/plugins/plugins/main/ptp@${CNI_PLUGINS_VERSION}" \
    "github.com/containernetworking/plugins/plugins/meta/portmap@${CNI_PLUGINS_VERSION}"
  with_progress "building CoreDNS ${COREDNS_VERSION}" env CGO_ENABLED=0 GOBIN="${out}" go install -trimpath \
    -ldflags "-s -w" "github.com/coredns/coredns@${COREDNS_VERSION}"
  with_progress "building local-path-provisioner ${LOCAL_PATH_VERSION}" env CGO_ENABLED=0 GOBIN="${out}" go install -trimpath \
    -ldflags "-s -w" "github.com/rancher/local-path-provisioner@${LOCAL_PATH_VERSION}"
  with_progress "building the kindnetd stand-in" env CGO_ENABLED=0 \
    sh -c "cd '${REPO_ROOT}/scripts/ci/kind-node' && go build -ldflags '-s -w' -o '${out}/kindnetd' ./kindnetd"

  # pause 是 Kubernetes 原始碼裡的一個 C 程式，靜態連結。 / pause is a C program in Kubernetes' source, linked statically.
  local kubernetes
  kubernetes="$(module_dir scripts/controlplane k8s.io/kubernetes)"
  gcc -Os -Wall -Werror -static -DVERSION="$(kube_version)" -o "${out}/pause" "${kubernetes}/build/pause/linux/pause.c"
  strip "${out}/pause"
}

# 3. kubeadm 與 kind 要的映像檔名稱，直接問它們自己。 / 3. The image names kubeadm and kind ask for, taken from themselves.
image_names() {
  local kind_dir
  "${WORK}/bin/kubeadm" config images list --kubernetes-version "$(kube_version)" >"${WORK}/kubeadm-images.txt"
  grep -qx "registry.k8s.io/coredns/coredns:${COREDNS_VERSION}" "${WORK}/kubeadm-images.txt" ||
    die "kubeadm $(kube_version) wants $(grep coredns "${WORK}/kubeadm-images.txt"), not CoreDNS ${COREDNS_VERSION}: update COREDNS_VERSION in $0"
  kind_dir="$(module_dir . sigs.k8s.io/kind)"
  (cd "${REPO_ROOT}/scripts/ci/kind-node" && go run ./manifests "${kind_dir}" "${WORK}/manifests") >"${WORK}/kind-images.txt"
}

# image_of 印出清單裡以某個前置字串開頭的那一個映像檔名稱。 / image_of prints the one image name in a list that starts with a prefix.
image_of() {
  local name
  name="$(grep -m 1 "^$2" "${WORK}/$1")" || die "no image starting with $2 in $1"
  printf '%s\n' "${name}"
}
