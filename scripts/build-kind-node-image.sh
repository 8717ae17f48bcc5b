#!/usr/bin/env bash
# build-kind-node-image.sh：不經任何容器 registry，從釘選的原始碼與 Debian 套件建出 kind v0.33.0 的節點映像檔
# （Kubernetes 版本與本機叢集的 kube-apiserver 相同），給連不到 registry 的機器用：CI、沒有網路的工作坊教室。
# 連得上網路的學習者不需要它：cluster-up.sh 預設用 kind 以 digest 釘選的上游映像檔。
# Build a kind v0.33.0 node image from pinned sources and Debian packages, without any container registry
# (the same Kubernetes version as the local kube-apiserver), for machines that cannot reach a registry: CI,
# a workshop room without a network. Learners online do not need it: cluster-up.sh defaults to the upstream
# image kind pins by digest.
#
#   scripts/build-kind-node-image.sh                build, or reuse a cached one; the last line is the image name
#   scripts/build-kind-node-image.sh --print-name   print the image name this checkout builds, and exit
#
# 需要一個有回應的 Docker daemon；建置本身還需要 root（debootstrap 與 chroot）。第一次約 15 分鐘（2 核心），
# 之後從每個使用者的快取載入（幾秒）。內容與上游映像檔的差別見 scripts/kind-node/README.md。
# Needs a Docker daemon that answers; building also needs root (debootstrap and chroot). The first build takes
# about 15 minutes on 2 cores; later runs load it from the per-user cache in seconds. How it differs from the
# upstream image: scripts/kind-node/README.md.
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 版本：kind v0.33.0 的 images/base/Dockerfile 釘選的，或 Go 模組代理伺服器上有的最接近版本。
# Kubernetes、etcd 的版本來自 scripts/controlplane/go.mod；kind 的版本來自 go.mod。
# Versions: those kind v0.33.0's images/base/Dockerfile pins, or the nearest the Go module proxy serves.
# Kubernetes and etcd come from scripts/controlplane/go.mod; kind from go.mod.
CONTAINERD_VERSION=v2.3.4
RUNC_VERSION=v1.4.3
CRICTL_VERSION=v1.36.0
CNI_PLUGINS_VERSION=v1.9.1
# kubeadm v1.37.2 要的 CoreDNS；下面會跟 kubeadm 自己列出的映像檔核對。 / The CoreDNS kubeadm v1.37.2 wants; checked below against kubeadm's own image list.
COREDNS_VERSION=v1.14.6
# kind 釘選 v0.0.34，模組代理伺服器只有 v0.0.30；同一份 manifest 可用。 / kind pins v0.0.34; the module proxy serves only v0.0.30, and the same manifest works.
LOCAL_PATH_VERSION=v0.0.30
# 上游用 trixie；這裡用 bookworm：它的 systemd 252 還接受 cgroup v1 的主機。 / Upstream uses trixie; bookworm's systemd 252 still accepts a cgroup v1 host.
DEBIAN_SUITE=bookworm

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# debootstrap 用的 Debian 鏡像站。 / The Debian mirror debootstrap uses.
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# 建好的映像檔（docker save 再以 zstd 壓縮）存放處。 / Where the built image is kept (docker save, compressed with zstd).
NODE_IMAGE_CACHE="${NODE_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/informer-walkthrough/kind-node}"

STARTED=${SECONDS}
WORK=""
BUILD_CONTAINER=""
BASE_IMAGE=""

phase() {
  log "[$(seconds_since "${STARTED}")] $*"
}

cleanup() {
  [[ -z "${BUILD_CONTAINER}" ]] || docker rm -f -v "${BUILD_CONTAINER}" >/dev/null 2>&1 || true
  [[ -z "${BASE_IMAGE}" ]] || docker rmi "${BASE_IMAGE}" >/dev/null 2>&1 || true
  [[ -z "${WORK}" ]] || rm -rf "${WORK}"
}

# node_image_key 是映像檔內容所有輸入的雜湊：這個腳本、scripts/kind-node（README 除外）、runc 包裝程式、兩個 go.mod
# 的版本與 Go 的版本。任何一個變了，映像檔的名稱就變，舊的快取不會被誤用。
# node_image_key hashes every input of the image: this script, scripts/kind-node (its README aside), the runc wrapper, the
# versions in both go.mod files, and the Go version. When any of them changes the image name changes, so a stale cache is
# never used.
node_image_key() {
  (
    cd "${REPO_ROOT}" || exit 1
    go env GOVERSION GOARCH
    grep -h 'sigs.k8s.io/kind ' go.mod
    find scripts/build-kind-node-image.sh scripts/kind-node scripts/ci-docker/runc-capbnd-wrapper \
      scripts/controlplane/go.mod scripts/controlplane/go.sum -type f ! -name '*.md' | LC_ALL=C sort |
      while IFS= read -r file; do
        printf '%s\n' "${file}"
        cat "${file}"
      done
  ) | sha256_of | cut -c 1-12
}

image_name() {
  printf 'localhost/informer-walkthrough/kind-node:%s-%s\n' "$(kube_version)" "$(node_image_key)"
}

# with_progress 執行一個長指令，每 PROGRESS_EVERY 秒說一次它跑了多久；失敗時印出它最後幾行輸出。
# with_progress runs a long command and says every PROGRESS_EVERY seconds how long it has run; on failure it prints its last lines.
with_progress() {
  local label="$1" started=${SECONDS} logfile pid
  shift
  logfile="${WORK}/$(printf '%s' "${label}" | tr -c 'a-zA-Z0-9' '-').log"
  "$@" >"${logfile}" 2>&1 &
  pid=$!
  if ! every_while "${pid}" with_progress_line; then
    tail -n 20 "${logfile}" >&2
    die "${label} failed (its last lines are above)"
  fi
  log "done ${label} in $(seconds_since "${started}")"
}

# with_progress_line 是 with_progress 的進度訊息；它讀 with_progress 的區域變數（bash 的動態作用域）。
# with_progress_line is with_progress's progress line; it reads with_progress's local variables (bash scopes dynamically).
with_progress_line() {
  log "still ${label}, $(seconds_since "${started}") so far"
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
    sh -c "cd '${REPO_ROOT}/scripts/kind-node' && go build -ldflags '-s -w' -o '${out}/kindnetd' ./kindnetd"

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
  (cd "${REPO_ROOT}/scripts/kind-node" && go run ./manifests "${kind_dir}" "${WORK}/manifests") >"${WORK}/kind-images.txt"
}

# image_of 印出清單裡以某個前置字串開頭的那一個映像檔名稱。 / image_of prints the one image name in a list that starts with a prefix.
image_of() {
  local name
  name="$(grep -m 1 "^$2" "${WORK}/$1")" || die "no image starting with $2 in $1"
  printf '%s\n' "${name}"
}

# 4. 節點的作業系統：debootstrap 一個 Debian，加上 kind base 映像檔的檔案與設定。 / 4. The node's OS: debootstrap Debian, plus kind's base image files and settings.
make_rootfs() {
  local root="${WORK}/rootfs" files
  files="$(module_dir . sigs.k8s.io/kind)/images/base/files"
  with_progress "debootstrapping Debian ${DEBIAN_SUITE}" debootstrap --variant=minbase \
    --include=systemd,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,fuse-overlayfs,e2fsprogs,bash,ca-certificates,curl,jq,procps,socat,ebtables \
    "${DEBIAN_SUITE}" "${root}" "${DEBIAN_MIRROR}"
  cat >"${root}/etc/apt/sources.list" <<EOF
deb ${DEBIAN_MIRROR} ${DEBIAN_SUITE} main
deb ${DEBIAN_MIRROR} ${DEBIAN_SUITE}-updates main
deb ${DEBIAN_MIRROR%/debian}/debian-security ${DEBIAN_SUITE}-security main
EOF
  cp /etc/resolv.conf "${root}/etc/resolv.conf"
  with_progress "applying Debian's updates" chroot "${root}" sh -c \
    'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y && apt-get clean'

  # kind 的 Dockerfile：腳本 0755，其餘 0644。 / As kind's Dockerfile does: scripts 0755, everything else 0644.
  mkdir -p "${root}/kind/bin" "${root}/LICENSES" "${root}/etc/containerd" "${root}/etc/default" "${root}/etc/sysctl.d" \
    "${root}/etc/systemd/system/kubelet.service.d" "${root}/opt/cni/bin" "${root}/etc/kubernetes/manifests"
  install -m 0755 "${files}"/usr/local/bin/* "${root}/usr/local/bin/"
  install -m 0755 "${files}"/kind/bin/* "${root}/kind/bin/"
  install -m 0644 "${files}/kind/README.txt" "${root}/kind/"
  install -m 0644 "${files}"/LICENSES/* "${root}/LICENSES/"
  install -m 0644 "${files}/etc/crictl.yaml" "${root}/etc/"
  install -m 0644 "${files}"/etc/containerd/* "${root}/etc/containerd/"
  install -m 0644 "${files}"/etc/default/* "${root}/etc/default/"
  install -m 0644 "${files}"/etc/sysctl.d/* "${root}/etc/sysctl.d/"
  install -m 0644 "${files}"/etc/systemd/system/*.service "${files}"/etc/systemd/system/*.slice "${root}/etc/systemd/system/"
  install -m 0644 "${files}"/etc/systemd/system/kubelet.service.d/* "${root}/etc/systemd/system/kubelet.service.d/"
  chmod 0755 "${root}/kind" "${root}/kind/bin"
  # 跟 kind 的 Dockerfile 一樣修剪 systemd 的單元，並啟用 kubelet 與 containerd。
  # Prune systemd's units and enable the kubelet and containerd, as kind's Dockerfile does.
  chroot "${root}" sh -euc '
    find /lib/systemd/system/sysinit.target.wants/ -name systemd-tmpfiles-setup.service -delete
    rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/* \
      /lib/systemd/system/local-fs.target.wants/* /lib/systemd/system/sockets.target.wants/*udev* \
      /lib/systemd/system/sockets.target.wants/*initctl* /lib/systemd/system/basic.target.wants/*
    echo ReadKMsg=no >>/etc/systemd/journald.conf
    ln -sf /usr/lib/systemd/systemd /sbin/init
    systemctl enable kubelet.service containerd.service undo-mount-hacks.service >/dev/null 2>&1
    systemctl mask systemd-binfmt.service >/dev/null 2>&1'

  local bin="${WORK}/bin"
  install -m 0755 "${bin}/containerd" "${bin}/ctr" "${bin}/containerd-shim-runc-v2" "${bin}/crictl" "${root}/usr/local/bin/"
  install -m 0755 "${bin}"/cni/* "${root}/opt/cni/bin/"
  # 節點裡的 runc 也經過包裝：在能力不完整的主機上，kubelet 要求的 oom_score_adj 才設得下去；能力完整時它什麼都不改。
  # runc in the node is wrapped too: on a host with an incomplete capability set, the kubelet's oom_score_adj can then be
  # applied; with every capability present the wrapper changes nothing.
  install -m 0755 "${bin}/runc" "${root}/usr/local/sbin/runc.real"
  install -m 0755 "${REPO_ROOT}/scripts/ci-docker/runc-capbnd-wrapper" "${root}/usr/local/sbin/runc"
  chroot "${root}" sh -euc '
    ctr oci spec |
      jq ".hooks.createContainer[.hooks.createContainer | length] |= . + {\"path\": \"/kind/bin/mount-product-files.sh\"}" |
      jq "del(.process.rlimits)" >/etc/containerd/cri-base.json'
}

# 5. 映像檔封存檔：跟 docker save 同樣格式（manifest.json、設定檔、一層 layer.tar），由 tar 與 jq 直接寫出，
#    不經 Docker daemon，所以不會覆寫 daemon 裡同名的映像檔。
# 5. Image archives, in docker save's format (manifest.json, a config, one layer.tar), written directly with tar and jq,
#    not through the Docker daemon, so nothing of the same name in the daemon is overwritten.
#    用法 / usage: image_archive <rootfs> <name:tag> <out.tar> <config JSON> [tar options…]
image_archive() {
  local root="$1" name="$2" out="$3" config="$4" dir layer config_id
  shift 4
  dir="$(mktemp -d "${WORK}/archive.XXXXXX")"
  tar -C "${root}" --numeric-owner "$@" -cf "${dir}/layer.tar" .
  layer="$(sha256_of <"${dir}/layer.tar")"
  mkdir "${dir}/${layer}"
  mv "${dir}/layer.tar" "${dir}/${layer}/layer.tar"
  jq -n --argjson config "${config}" --arg layer "sha256:${layer}" --arg arch "$(go env GOARCH)" \
    '{architecture: $arch, os: "linux", config: $config, rootfs: {type: "layers", diff_ids: [$layer]}}' >"${dir}/config.json"
  config_id="$(sha256_of <"${dir}/config.json")"
  mv "${dir}/config.json" "${dir}/${config_id}.json"
  jq -n --arg config "${config_id}.json" --arg name "${name}" --arg layer "${layer}/layer.tar" \
    '[{Config: $config, RepoTags: [$name], Layers: [$layer]}]' >"${dir}/manifest.json"
  tar -C "${dir}" -cf "${out}" manifest.json "${config_id}.json" "${layer}"
  rm -rf "${dir}"
}

# skeleton 是像 distroless/static 的根目錄：passwd、group、/tmp 與 CA 憑證。 / skeleton is a root like distroless/static: passwd, group, /tmp and the CA bundle.
skeleton() {
  local root="$1"
  mkdir -p "${root}/etc/ssl/certs" "${root}/tmp" "${root}/usr/local/bin" "${root}/var/run"
  chmod 1777 "${root}/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"${root}/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' >"${root}/etc/group"
  cp /etc/ssl/certs/ca-certificates.crt "${root}/etc/ssl/certs/"
}

# stage 從節點的 rootfs 複製檔案到映像檔的根目錄，順著符號連結，並帶上 ldd 列出的函式庫。
# stage copies files from the node's rootfs into an image root, following symbolic links and bringing the libraries ldd names.
stage() {
  local into="$1" from="${WORK}/rootfs" file lib
  shift
  for file in "$@"; do
    file="${file#"${from}"}"
    (cd "${from}" && cp -a --parents ".${file}" "${into}/")
    [[ ! -L "${from}${file}" ]] || stage "${into}" "$(chroot "${from}" readlink -f "${file}")"
    for lib in $(chroot "${from}" ldd "${file}" 2>/dev/null | grep -o '/[^ ]*'); do
      [[ -e "${into}${lib}" ]] || stage "${into}" "${lib}"
    done
  done
}

# binary_root 做出一個只有一個執行檔的根目錄：skeleton，加上執行檔（去掉除錯資訊）。本機叢集的執行檔以 cgo 建置、
# 動態連結 glibc，所以也帶上 ldd 列出的函式庫，取自節點 rootfs 裡同一版的 Debian。
# binary_root makes a root with one executable: the skeleton, plus the executable (debug information stripped). The local
# cluster's binaries are built with cgo and link glibc dynamically, so the libraries ldd names come too, from the same
# Debian release in the node's rootfs.
binary_root() {
  local root="$1" name="$2" d lib
  skeleton "${root}"
  mkdir -p "${root}/usr/lib" "${root}/usr/lib64"
  for d in lib lib64 sbin; do
    [[ ! -L "${WORK}/rootfs/${d}" ]] || cp -a "${WORK}/rootfs/${d}" "${root}/${d}"
  done
  install -m 0755 "${WORK}/bin/${name}" "${root}/usr/local/bin/"
  strip "${root}/usr/local/bin/${name}"
  for lib in $(ldd "${WORK}/bin/${name}" 2>/dev/null | grep -o '/[^ ]*'); do
    [[ -e "${root}${lib}" ]] || stage "${root}" "${lib}"
  done
}

# component_images 為 kubeadm 與 kind 要的每個映像檔寫出封存檔。 / component_images writes an archive for every image kubeadm and kind ask for.
component_images() {
  local out="${WORK}/images" root env
  mkdir -p "${out}"
  env='["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]'
  entry() { printf '{"Env": %s, "Entrypoint": ["%s"]%s}' "${env}" "$1" "${2:-}"; }

  local c
  for c in kube-apiserver kube-controller-manager kube-scheduler; do
    root="${WORK}/img/${c}"
    binary_root "${root}" "${c}"
    image_archive "${root}" "$(image_of kubeadm-images.txt "registry.k8s.io/${c}:")" "${out}/${c}.tar" \
      "$(entry "/usr/local/bin/${c}")" --owner=0 --group=0
  done

  # kube-proxy 還需要 iptables（nft 與 legacy 兩種）與 conntrack，連同函式庫與 dlopen 載入的 xtables 擴充
  # （ldd 看不到它們，例如 statistic 要的 libm）。
  # kube-proxy also needs iptables (both nft and legacy) and conntrack, with their libraries and the xtables extensions
  # they dlopen (ldd cannot see those; statistic needs libm, for one).
  root="${WORK}/img/kube-proxy"
  binary_root "${root}" kube-proxy
  mkdir -p "${root}/usr/sbin" "${root}/bin"
  stage "${root}" /usr/sbin/xtables-nft-multi /usr/sbin/xtables-legacy-multi /usr/sbin/conntrack \
    "${WORK}"/rootfs/usr/lib/x86_64-linux-gnu/xtables/*.so
  for c in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
    ln -sf xtables-nft-multi "${root}/usr/sbin/${c}-nft"
    ln -sf xtables-legacy-multi "${root}/usr/sbin/${c}-legacy"
    ln -sf iptables-wrapper "${root}/usr/sbin/${c}"
  done
  install -m 0755 "${REPO_ROOT}/scripts/kind-node/iptables-wrapper" "${root}/usr/sbin/iptables-wrapper"
  install -m 0755 /bin/busybox "${root}/bin/busybox"
  for c in sh grep ln; do ln -sf busybox "${root}/bin/${c}"; done
  image_archive "${root}" "$(image_of kubeadm-images.txt registry.k8s.io/kube-proxy:)" "${out}/kube-proxy.tar" \
    "$(entry /usr/local/bin/kube-proxy)" --owner=0 --group=0

  root="${WORK}/img/etcd"
  binary_root "${root}" etcd
  mkdir -p "${root}/var/lib/etcd"
  image_archive "${root}" "$(image_of kubeadm-images.txt registry.k8s.io/etcd:)" "${out}/etcd.tar" \
    "$(entry /usr/local/bin/etcd)" --owner=0 --group=0

  root="${WORK}/img/coredns"
  skeleton "${root}"
  install -m 0755 "${WORK}/bin/coredns" "${root}/coredns"
  image_archive "${root}" "$(image_of kubeadm-images.txt registry.k8s.io/coredns/coredns:)" "${out}/coredns.tar" \
    "$(entry /coredns ', "User": "65532:65532", "ExposedPorts": {"53/tcp": {}, "53/udp": {}}')" --owner=0 --group=0

  # kubeadm 要 pause:3.10.2，kind 的 containerd 設定用 sandbox_image pause:3.10；同一個執行檔，兩個名稱。
  # kubeadm asks for pause:3.10.2, kind's containerd config uses sandbox_image pause:3.10; one binary, two names.
  root="${WORK}/img/pause"
  mkdir -p "${root}"
  install -m 0755 "${WORK}/bin/pause" "${root}/pause"
  local pause sandbox
  pause="$(image_of kubeadm-images.txt registry.k8s.io/pause:)"
  sandbox="$(sed -n 's/^ *sandbox_image = "\(.*\)"$/\1/p' "${WORK}/rootfs/etc/containerd/config.toml")"
  image_archive "${root}" "${pause}" "${out}/pause.tar" "$(entry /pause ', "User": "65535:65535"')" --owner=0 --group=0
  if [[ -n "${sandbox}" && "${sandbox}" != "${pause}" ]]; then
    image_archive "${root}" "${sandbox}" "${out}/sandbox.tar" "$(entry /pause ', "User": "65535:65535"')" --owner=0 --group=0
  fi

  root="${WORK}/img/kindnetd"
  skeleton "${root}"
  mkdir -p "${root}/bin"
  install -m 0755 "${WORK}/bin/kindnetd" "${root}/bin/kindnetd"
  image_archive "${root}" "$(image_of kind-images.txt docker.io/kindest/kindnetd:)" "${out}/kindnetd.tar" \
    "$(entry /bin/kindnetd)" --owner=0 --group=0

  root="${WORK}/img/local-path-provisioner"
  skeleton "${root}"
  install -m 0755 "${WORK}/bin/local-path-provisioner" "${root}/usr/local/bin/"
  image_archive "${root}" "$(image_of kind-images.txt docker.io/kindest/local-path-provisioner:)" "${out}/local-path-provisioner.tar" \
    "$(entry /usr/local/bin/local-path-provisioner)" --owner=0 --group=0

  # local-path-helper 只需要一個 shell 與常用指令：靜態的 busybox。 / local-path-helper needs only a shell and the usual commands: a static busybox.
  root="${WORK}/img/local-path-helper"
  mkdir -p "${root}/bin"
  install -m 0755 /bin/busybox "${root}/bin/busybox"
  for c in $(/bin/busybox --list); do [[ -e "${root}/bin/${c}" ]] || ln -s busybox "${root}/bin/${c}"; done
  image_archive "${root}" "$(image_of kind-images.txt docker.io/kindest/local-path-helper:)" "${out}/local-path-helper.tar" \
    "{\"Env\": ${env}}" --owner=0 --group=0
}

# 6. base 映像檔：清掉建置時的暫存，封存後 docker load。 / 6. The base image: clear what building left behind, archive it, docker load.
base_image() {
  local root="${WORK}/rootfs"
  rm -rf "${root}"/var/cache/debconf/* "${root}"/var/lib/apt/lists/* "${root}"/var/log/* "${root}"/tmp/* "${root}"/var/tmp/* \
    "${root}"/usr/share/doc/* "${root}"/usr/share/man/* "${root}"/var/cache/apt/*.bin
  # Docker 在執行時提供 resolv.conf、hostname 與 hosts。 / Docker provides resolv.conf, hostname and hosts at run time.
  : >"${root}/etc/resolv.conf"
  : >"${root}/etc/hostname"
  rm -f "${root}/etc/machine-id"
  BASE_IMAGE="localhost/informer-walkthrough/kind-base:$(node_image_key)"
  image_archive "${root}" "${BASE_IMAGE}" "${WORK}/base.tar" \
    '{"Env": ["container=docker", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"], "Entrypoint": ["/usr/local/bin/entrypoint", "/sbin/init"], "StopSignal": "SIGRTMIN+3"}'
  docker load -i "${WORK}/base.tar" >/dev/null
  rm -f "${WORK}/base.tar"
}

# 7. 節點映像檔：照 kind build node-image 的做法（pkg/build/nodeimage/buildcontext.go），但映像檔從本機的封存檔匯入，
#    而不是 ctr content fetch（那需要 registry）。
# 7. The node image: as kind build node-image does it (pkg/build/nodeimage/buildcontext.go), but importing the images
#    from local archives instead of ctr content fetch (which needs a registry).
node_image() {
  local image="$1" id b tar
  id="informer-walkthrough-kind-build-$$"
  BUILD_CONTAINER="${id}"
  docker run -d --name "${id}" --entrypoint sleep --security-opt seccomp=unconfined "${BASE_IMAGE}" infinity >/dev/null
  for b in kubeadm kubelet kubectl; do
    docker cp "${WORK}/bin/${b}" "${id}:/usr/bin/${b}"
    docker exec "${id}" chown root:root "/usr/bin/${b}"
    docker exec "${id}" chmod 0755 "/usr/bin/${b}"
  done
  kube_version | docker exec -i "${id}" sh -c 'tr -d "\n" >/kind/version'
  docker exec "${id}" mkdir -p /kind/manifests
  for b in default-cni.yaml default-storage.yaml; do
    docker exec -i "${id}" cp /dev/stdin "/kind/manifests/${b}" <"${WORK}/manifests/${b}"
  done
  docker exec "${id}" sh -c 'nohup containerd >/dev/null 2>&1 &'
  docker exec "${id}" sh -c 'for i in $(seq 50); do ctr version >/dev/null 2>&1 && exit 0; sleep 0.2; done; exit 1' ||
    die "containerd did not start in the build container"
  for tar in "${WORK}"/images/*.tar; do
    docker exec -i "${id}" ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned \
      --all-platforms --no-unpack --digests - <"${tar}" >/dev/null
  done
  docker exec "${id}" ctr --namespace=k8s.io images list -q | grep -v '@sha256:\|^sha256:' | sed 's/^/  in the node: /' >&2
  docker exec "${id}" pkill containerd
  # PID 1 是 sleep，不會回收子行程，所以殭屍行程也算已經結束。 / PID 1 is sleep, which reaps nothing, so a zombie counts as gone.
  docker exec "${id}" sh -c 'for i in $(seq 50); do ps -C containerd -o stat= | grep -qv "^Z" || exit 0; sleep 0.2; done; exit 1' ||
    die "containerd did not stop in the build container"
  docker commit \
    --change 'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]' \
    --change 'ENV HTTP_PROXY="" HTTPS_PROXY="" NO_PROXY=""' \
    "${id}" "${image}" >/dev/null
}

main() {
  local image
  case "${1:-}" in
  "") ;;
  --print-name)
    image_name
    return
    ;;
  *) die "unknown argument '$1' (usage: $0 [--print-name])" ;;
  esac
  command -v go >/dev/null 2>&1 || die "go is not installed (see README.md for the version)"
  image="$(image_name)"
  docker_answers ||
    die "building the node image needs a Docker daemon that answers (on a CI machine without one: sudo scripts/ci-docker.sh start)"

  local cached="${NODE_IMAGE_CACHE}/${image##*:}.tar.zst"
  if docker image inspect "${image}" >/dev/null 2>&1; then
    log "${image} is already in the Docker daemon"
  elif [[ -f "${cached}" ]]; then
    command -v zstd >/dev/null 2>&1 || die "zstd is missing (needed to load ${cached})"
    log "loading ${image} from ${cached}"
    zstd -dc "${cached}" | docker load >/dev/null
    log "loaded in $(seconds_since "${STARTED}")"
  else
    ensure_build_tools
    log "building ${image}; the first build takes about 15 minutes on 2 cores, later runs reuse it"
    mkdir -p "${NODE_IMAGE_CACHE}"
    trap cleanup EXIT
    WORK="$(mktemp -d "${NODE_IMAGE_CACHE}/work.XXXXXX")"
    phase "binaries"
    build_binaries
    image_names
    phase "the node's root file system"
    make_rootfs
    phase "the images kubeadm and kind ask for"
    component_images
    phase "the base image and the node image"
    base_image
    node_image "${image}"
    phase "saving it to ${cached} for later runs"
    docker save "${image}" | zstd -q -T0 -3 -o "${cached}.tmp"
    mv "${cached}.tmp" "${cached}"
    # 舊的快取檔與映像檔（其他輸入建出的）不再有用；還有容器在用的映像檔，docker rmi 會留著它。
    # Older cache files and images (built from other inputs) are of no further use; docker rmi keeps an image a container still uses.
    find "${NODE_IMAGE_CACHE}" -maxdepth 1 -name '*.tar.zst' ! -name "${cached##*/}" -delete
    docker image ls --format '{{.Repository}}:{{.Tag}}' "${image%:*}" | grep -vxF "${image}" | xargs -r docker rmi >/dev/null 2>&1 || true
    phase "built ${image} ($(du -h "${cached}" | cut -f 1) compressed)"
  fi
  printf '%s\n' "${image}"
}

main "$@"
