# shellcheck shell=bash
# binaries.sh：建置需要的工具與原始碼、節點裡的每個執行檔，以及 kubeadm 與 kind 要的映像檔名稱（建置步驟 1 到 3、5、6）。
# binaries.sh: the tools and sources building needs, every executable in the node, and the image names kubeadm and kind
# ask for (build steps 1 to 3, 5 and 6).
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

# 2. 原始碼：這個目錄的 Go 模組要的每個模組、runc，以及 Debian 的套件（debootstrap，見 rootfs.sh）。先下載，
#    建置時就只剩 CPU 的工作；test.sh 在背景建置時，下載正好跟前景的編譯重疊。
# 2. Sources: every module this directory's Go module needs, runc, and Debian's packages (debootstrap, see rootfs.sh).
#    Downloading first leaves only CPU work for the builds; when test.sh builds in the background, the downloads overlap
#    the compiling in the foreground.
download_sources() {
  with_progress "downloading the Go modules" in_dir "${REPO_ROOT}/scripts/ci/kind-node" sh -c \
    "go mod download && go mod download github.com/opencontainers/runc@${RUNC_VERSION}"
  debootstrap_rootfs
}

# 3. Kubernetes 以外的執行檔。containerd、ctr、containerd-shim-runc-v2、crictl、CNI 外掛與 local-path-provisioner
#    是這個目錄的 go.mod 裡的 tool，CoreDNS（只帶 kubeadm 的 Corefile 用到的外掛）與 kindnetd 替身是這裡的小程式：
#    全部用同一份 go.mod，共用的函式庫（client-go、grpc、protobuf、OpenTelemetry）只編譯一次，版本也只有一套。
#    containerd 用 kind 的 base 映像檔同樣的 build tag。runc 需要 cgo 與 libseccomp，以 go install 模組@版本 另外建。
# 3. The binaries that are not Kubernetes'. containerd, ctr, containerd-shim-runc-v2, crictl, the CNI plugins and
#    local-path-provisioner are tools in this directory's go.mod; CoreDNS (with only the plugins kubeadm's Corefile uses)
#    and the kindnetd stand-in are small programs here. All use one go.mod, so the libraries they share (client-go, grpc,
#    protobuf, OpenTelemetry) compile once and come in one version each. containerd gets the build tags of kind's base
#    image. runc needs cgo and libseccomp, and is built apart with go install module@version.
build_binaries() {
  local out="${WORK}/bin" module="${REPO_ROOT}/scripts/ci/kind-node"
  mkdir -p "${out}/cni"
  local flags=(-trimpath -tags "no_aufs no_zfs no_btrfs no_devmapper"
    -ldflags "-s -w -X github.com/containerd/containerd/v2/version.Version=${CONTAINERD_VERSION} -X sigs.k8s.io/cri-tools/pkg/version.Version=${CRICTL_VERSION}")
  with_progress "building containerd, crictl, CoreDNS and the kindnetd stand-in" in_dir "${module}" env CGO_ENABLED=0 \
    go build "${flags[@]}" -o "${out}/" ./coredns ./kindnetd github.com/containerd/containerd/v2/cmd/containerd \
    github.com/containerd/containerd/v2/cmd/ctr github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 \
    sigs.k8s.io/cri-tools/cmd/crictl
  with_progress "building the CNI plugins" in_dir "${module}" env CGO_ENABLED=0 go build "${flags[@]}" -o "${out}/cni/" \
    github.com/containernetworking/plugins/plugins/ipam/host-local github.com/containernetworking/plugins/plugins/main/loopback \
    github.com/containernetworking/plugins/plugins/main/ptp github.com/containernetworking/plugins/plugins/meta/portmap
  # local-path-provisioner 的相依裡有舊的 github.com/Sirupsen/logrus，跟 containerd 用的 sirupsen 在同一次 go build 裡
  # 會被當成大小寫衝突，所以分開建（仍是同一份 go.mod 與建置快取）。
  # local-path-provisioner's dependencies include the old github.com/Sirupsen/logrus, which one go build together with
  # containerd's sirupsen rejects as a case collision; so it is built apart (still the same go.mod and build cache).
  with_progress "building local-path-provisioner" in_dir "${module}" env CGO_ENABLED=0 go build "${flags[@]}" -o "${out}/" \
    github.com/rancher/local-path-provisioner
  check_coredns_plugins "${out}/coredns"
  with_progress "building runc ${RUNC_VERSION}" env CGO_ENABLED=1 GOBIN="${out}" go install -trimpath \
    -tags "seccomp urfave_cli_no_docs" -ldflags "-s -w" "github.com/opencontainers/runc@${RUNC_VERSION}"

  # pause 是 Kubernetes 原始碼裡的一個 C 程式，靜態連結。 / pause is a C program in Kubernetes' source, linked statically.
  local kubernetes
  kubernetes="$(module_dir scripts/controlplane k8s.io/kubernetes)"
  gcc -Os -Wall -Werror -static -DVERSION="$(kube_version)" -o "${out}/pause" "${kubernetes}/build/pause/linux/pause.c"
  strip "${out}/pause"
}

# in_dir 在目錄 $1 裡執行其餘的參數。 / in_dir runs the rest of its arguments inside directory $1.
in_dir() {
  cd "$1" && shift && "$@"
}

# check_coredns_plugins 確認 kubeadm 的 Corefile（取自模組快取裡 kubeadm 的原始碼）用到的每個外掛，都在建好的 CoreDNS 裡。
# check_coredns_plugins makes sure every plugin kubeadm's Corefile uses (read from kubeadm's source in the module cache)
# is in the CoreDNS just built.
check_coredns_plugins() {
  local manifests plugins directives directive
  manifests="$(module_dir scripts/controlplane k8s.io/kubernetes)/cmd/kubeadm/app/phases/addons/dns/manifests.go"
  plugins="$("$1" -plugins)"
  # Corefile 在 CoreDNSConfigMap 這個字串裡（以反引號括起）；.:53 區塊裡縮排八格的每一行，第一個字是一個外掛。
  # The Corefile is in the CoreDNSConfigMap string (between backquotes); in its .:53 block, every line indented eight
  # spaces starts with a plugin.
  directives="$(awk '/CoreDNSConfigMap = /, /^`/ { print }' "${manifests}" |
    awk '/^    \.:53 \{/ { inside = 1; next } inside && /^    \}/ { inside = 0 } inside && /^        [a-z]/ { print $1 }')"
  [[ -n "${directives}" ]] || die "found no Corefile in ${manifests}"
  while IFS= read -r directive; do
    grep -qx "[[:space:]]*${directive}" <<<"${plugins}" ||
      die "kubeadm's Corefile uses the CoreDNS plugin ${directive}, which scripts/ci/kind-node/coredns does not import"
  done <<<"${directives}"
}

# 5. Kubernetes 的執行檔。控制平面與 etcd 沿用本機叢集建好的（還在建置時，build-controlplane.sh 會等它建完）；
#    kubeadm、kubelet、kubectl、kube-proxy 由同一個模組、同一份建置快取建出。
# 5. Kubernetes' binaries. The control plane and etcd are the ones the local cluster built (while that build is still
#    running, build-controlplane.sh waits for it); kubeadm, kubelet, kubectl and kube-proxy come from the same module and
#    build cache.
kubernetes_binaries() {
  local out="${WORK}/bin" cp
  "${REPO_ROOT}/scripts/build-controlplane.sh"
  cp="$(controlplane_bin_dir)"
  cp "${cp}/etcd" "${cp}/kube-apiserver" "${cp}/kube-controller-manager" "${cp}/kube-scheduler" "${out}/"
  go_build "${REPO_ROOT}/scripts/controlplane" "${out}/" "kubeadm, kubelet, kubectl and kube-proxy" "-s -w $(kube_version_ldflags)" \
    k8s.io/kubernetes/cmd/kubeadm k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl k8s.io/kubernetes/cmd/kube-proxy
}

# 6. kubeadm 與 kind 要的映像檔名稱，直接問它們自己。 / 6. The image names kubeadm and kind ask for, taken from themselves.
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
