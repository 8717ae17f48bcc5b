#!/usr/bin/env bash
# build-kind-node-image.sh：不經任何 container registry，從釘選的原始碼與 Debian 套件建出 kind v0.33.0 的節點映像檔
# （Kubernetes 版本與本機叢集的 kube-apiserver 相同），給連不到 registry 的機器用：CI、沒有網路的工作坊教室。
# 連得上網路的學習者不需要它：cluster-up.sh 預設用 kind 以 digest 釘選的上游映像檔。
# Build a kind v0.33.0 node image from pinned sources and Debian packages, without any container registry
# (the same Kubernetes version as the local kube-apiserver), for machines that cannot reach a registry: CI,
# a workshop room without a network. Learners online do not need it: cluster-up.sh defaults to the upstream
# image kind pins by digest.
#
#   scripts/ci/build-kind-node-image.sh                build, or reuse a cached one; the last line is the image name
#   scripts/ci/build-kind-node-image.sh --print-name   print the image name this checkout builds, and exit
#
# 需要一個有回應的 Docker daemon；建置本身還需要 root（debootstrap 與 chroot）。第一次在 2 核心上要 5 到 15 分鐘
# （scripts/test.sh 跑過之後較快：它的靜態檢查已經編譯了要用的套件），之後從每個使用者的快取載入（半分鐘內）。
# 時間與內容（跟上游映像檔的差別）見 scripts/ci/kind-node/README.md。
# Needs a Docker daemon that answers; building also needs root (debootstrap and chroot). The first build takes 5 to
# 15 minutes on 2 cores (less after scripts/test.sh has run: its static checks compiled the packages it needs); later
# runs load it from the per-user cache in under half a minute. Its times, and how it differs from the upstream image:
# scripts/ci/kind-node/README.md.
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# 版本：kind v0.33.0 的 images/base/Dockerfile 釘選的，或 Go 模組代理伺服器上有的最接近版本。containerd、crictl、
# CNI 外掛、CoreDNS 與 local-path-provisioner 的版本寫在 scripts/ci/kind-node/go.mod（它們在那裡建置）；
# Kubernetes、etcd 的版本來自 scripts/controlplane/go.mod；kind 的版本來自 go.mod。
# Versions: those kind v0.33.0's images/base/Dockerfile pins, or the nearest the Go module proxy serves. containerd's,
# crictl's, the CNI plugins', CoreDNS's and local-path-provisioner's are in scripts/ci/kind-node/go.mod (where they are
# built); Kubernetes and etcd come from scripts/controlplane/go.mod; kind from go.mod.
RUNC_VERSION=v1.4.3
# kind_node_version 印出 scripts/ci/kind-node/go.mod 要的某個模組的版本。 / kind_node_version prints the version scripts/ci/kind-node/go.mod requires of a module.
kind_node_version() {
  awk -v module="$1" '$1 == module { print $2; exit }' "${REPO_ROOT}/scripts/ci/kind-node/go.mod"
}
CONTAINERD_VERSION="$(kind_node_version github.com/containerd/containerd/v2)"
CRICTL_VERSION="$(kind_node_version sigs.k8s.io/cri-tools)"
# kubeadm v1.37.2 要的 CoreDNS；下面會跟 kubeadm 自己列出的映像檔核對。 / The CoreDNS kubeadm v1.37.2 wants; checked below against kubeadm's own image list.
COREDNS_VERSION="$(kind_node_version github.com/coredns/coredns)"
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

# node_image_key 是映像檔內容所有輸入的雜湊：這個腳本、scripts/ci/kind-node（README 除外）、runc 包裝程式、兩個 go.mod
# 的版本與 Go 的版本。任何一個變了，映像檔的名稱就變，舊的快取不會被誤用。腳本的註解行不算：只改註解不必重建。
# node_image_key hashes every input of the image: this script, scripts/ci/kind-node (its README aside), the runc wrapper,
# the versions in both go.mod files, and the Go version. When any of them changes the image name changes, so a stale cache
# is never used. Comment lines of the scripts do not count: editing a comment needs no rebuild.
node_image_key() {
  (
    cd "${REPO_ROOT}" || exit 1
    go env GOVERSION GOARCH
    grep -h 'sigs.k8s.io/kind ' go.mod
    find scripts/ci/build-kind-node-image.sh scripts/ci/kind-node scripts/ci/docker/runc-capbnd-wrapper \
      scripts/controlplane/go.mod scripts/controlplane/go.sum -type f ! -name '*.md' | LC_ALL=C sort |
      while IFS= read -r file; do
        printf '%s\n' "${file}"
        case "${file}" in
        *.sh | */runc-capbnd-wrapper | */iptables-wrapper) grep -v '^[[:space:]]*#' "${file}" ;;
        *) cat "${file}" ;;
        esac
      done
  ) | sha256_of | cut -c 1-12
}

image_name() {
  printf 'localhost/informer-walkthrough/kind-node:%s-%s\n' "$(kube_version)" "$(node_image_key)"
}

# 建置的各個部分，依步驟分檔。 / The parts of the build, one file per group of steps.
# shellcheck source=scripts/ci/kind-node/binaries.sh
source "${REPO_ROOT}/scripts/ci/kind-node/binaries.sh"
# shellcheck source=scripts/ci/kind-node/rootfs.sh
source "${REPO_ROOT}/scripts/ci/kind-node/rootfs.sh"
# shellcheck source=scripts/ci/kind-node/archive.sh
source "${REPO_ROOT}/scripts/ci/kind-node/archive.sh"
# shellcheck source=scripts/ci/kind-node/images.sh
source "${REPO_ROOT}/scripts/ci/kind-node/images.sh"
# shellcheck source=scripts/ci/kind-node/node.sh
source "${REPO_ROOT}/scripts/ci/kind-node/node.sh"

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
    die "building the node image needs a Docker daemon that answers (on a CI machine without one: sudo scripts/ci/docker.sh start)"

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
    log "building ${image}; the first build takes 5 to 15 minutes on 2 cores (see scripts/ci/kind-node/README.md), later runs reuse it"
    mkdir -p "${NODE_IMAGE_CACHE}"
    trap cleanup EXIT
    WORK="$(mktemp -d "${NODE_IMAGE_CACHE}/work.XXXXXX")"
    phase "sources: the Go modules and Debian's packages"
    download_sources
    phase "the binaries that are not Kubernetes'"
    build_binaries
    phase "the node's root file system"
    make_rootfs
    phase "Kubernetes' binaries"
    kubernetes_binaries
    image_names
    phase "the images kubeadm and kind ask for"
    component_images
    phase "the base image and the node image"
    base_image
    node_image "${image}"
    phase "saving it to ${cached} for later runs"
    docker save "${image}" | zstd -q -T0 -3 -o "${cached}.tmp"
    mv "${cached}.tmp" "${cached}"
    # 舊的快取檔與映像檔（其他輸入建出的）不再有用；還有 container 在用的映像檔，docker rmi 會留著它。
    # Older cache files and images (built from other inputs) are of no further use; docker rmi keeps an image a container still uses.
    find "${NODE_IMAGE_CACHE}" -maxdepth 1 -name '*.tar.zst' ! -name "${cached##*/}" -delete
    docker image ls --format '{{.Repository}}:{{.Tag}}' "${image%:*}" | grep -vxF "${image}" | xargs -r docker rmi >/dev/null 2>&1 || true
    phase "built ${image} ($(du -h "${cached}" | cut -f 1) compressed)"
  fi
  printf '%s\n' "${image}"
}

main "$@"
