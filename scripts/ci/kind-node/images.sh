# shellcheck shell=bash
# images.sh：kubeadm 與 kind 要的每個元件映像檔（建置步驟 7）。
# images.sh: every component image kubeadm and kind ask for (build step 7).
# 由 scripts/ci/build-kind-node-image.sh source，使用它的設定與 WORK 目錄；不單獨執行。
# Sourced by scripts/ci/build-kind-node-image.sh, using its settings and WORK directory; not run on its own.

# IMAGE_ENV 是每個元件映像檔的環境變數。 / IMAGE_ENV is every component image's environment.
IMAGE_ENV='["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]'

# entry 印出一個映像檔設定：IMAGE_ENV、進入點，以及額外的 JSON 欄位。用法：entry 進入點 [', "User": …']
# entry prints an image config: IMAGE_ENV, the entrypoint, and extra JSON fields. Usage: entry entrypoint [', "User": …']
entry() {
  printf '{"Env": %s, "Entrypoint": ["%s"]%s}' "${IMAGE_ENV}" "$1" "${2:-}"
}

# static_image 寫出只有一個靜態執行檔的映像檔（像 distroless/static 那樣：skeleton 加上執行檔）。
# 用法：static_image 執行檔 映像檔裡的路徑 名稱清單 映像檔名稱的前置字串 [額外的設定欄位]
# static_image writes an image holding one static executable (as distroless/static does: the skeleton plus the binary).
# Usage: static_image binary path-in-image name-list image-name-prefix [extra config fields]
static_image() {
  local root="${WORK}/img/$1"
  skeleton "${root}"
  install -D -m 0755 "${WORK}/bin/$1" "${root}$2"
  image_archive "${root}" "$(image_of "$3" "$4")" "${WORK}/images/$1.tar" "$(entry "$2" "${5:-}")" --owner=0 --group=0
}

# component_images 為 kubeadm 與 kind 要的每個映像檔寫出封存檔。 / component_images writes an archive for every image kubeadm and kind ask for.
component_images() {
  local out="${WORK}/images" root
  mkdir -p "${out}"

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
    "${WORK}"/rootfs/usr/lib/*-linux-gnu/xtables/*.so
  for c in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
    ln -sf xtables-nft-multi "${root}/usr/sbin/${c}-nft"
    ln -sf xtables-legacy-multi "${root}/usr/sbin/${c}-legacy"
    ln -sf iptables-wrapper "${root}/usr/sbin/${c}"
  done
  install -m 0755 "${REPO_ROOT}/scripts/ci/kind-node/iptables-wrapper" "${root}/usr/sbin/iptables-wrapper"
  install -m 0755 /bin/busybox "${root}/bin/busybox"
  for c in sh grep ln; do ln -sf busybox "${root}/bin/${c}"; done
  image_archive "${root}" "$(image_of kubeadm-images.txt registry.k8s.io/kube-proxy:)" "${out}/kube-proxy.tar" \
    "$(entry /usr/local/bin/kube-proxy)" --owner=0 --group=0

  root="${WORK}/img/etcd"
  binary_root "${root}" etcd
  mkdir -p "${root}/var/lib/etcd"
  image_archive "${root}" "$(image_of kubeadm-images.txt registry.k8s.io/etcd:)" "${out}/etcd.tar" \
    "$(entry /usr/local/bin/etcd)" --owner=0 --group=0

  static_image coredns /coredns kubeadm-images.txt registry.k8s.io/coredns/coredns: \
    ', "User": "65532:65532", "ExposedPorts": {"53/tcp": {}, "53/udp": {}}'

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

  static_image kindnetd /bin/kindnetd kind-images.txt docker.io/kindest/kindnetd:
  static_image local-path-provisioner /usr/local/bin/local-path-provisioner kind-images.txt docker.io/kindest/local-path-provisioner:

  # local-path-helper 只需要一個 shell 與常用指令：靜態的 busybox。 / local-path-helper needs only a shell and the usual commands: a static busybox.
  root="${WORK}/img/local-path-helper"
  mkdir -p "${root}/bin"
  install -m 0755 /bin/busybox "${root}/bin/busybox"
  for c in $(/bin/busybox --list); do [[ -e "${root}/bin/${c}" ]] || ln -s busybox "${root}/bin/${c}"; done
  image_archive "${root}" "$(image_of kind-images.txt docker.io/kindest/local-path-helper:)" "${out}/local-path-helper.tar" \
    "{\"Env\": ${IMAGE_ENV}}" --owner=0 --group=0
}
