# shellcheck shell=bash
# rootfs.sh：節點的作業系統（建置步驟 2 的 debootstrap 與 4）。
# rootfs.sh: the node's operating system (build step 2's debootstrap, and 4).
# 由 scripts/ci/build-kind-node-image.sh source，使用它的設定與 WORK 目錄；不單獨執行。
# Sourced by scripts/ci/build-kind-node-image.sh, using its settings and WORK directory; not run on its own.

# 2. 原始碼的一部分：debootstrap 一個 Debian 當作節點的作業系統，並套用它的更新。
# 2. Part of the sources: debootstrap Debian as the node's OS, and apply its updates.
debootstrap_rootfs() {
  local root="${WORK}/rootfs"
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
}

# 4. 節點的作業系統，其餘的部分：kind base 映像檔的檔案與設定，以及步驟 3 建好的執行檔。
# 4. The rest of the node's OS: kind's base image files and settings, and the binaries step 3 built.
make_rootfs() {
  local root="${WORK}/rootfs" files
  files="$(module_dir . sigs.k8s.io/kind)/images/base/files"

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
  install -m 0755 "${REPO_ROOT}/scripts/ci/docker/runc-capbnd-wrapper" "${root}/usr/local/sbin/runc"
  chroot "${root}" sh -euc '
    ctr oci spec |
      jq ".hooks.createContainer[.hooks.createContainer | length] |= . + {\"path\": \"/kind/bin/mount-product-files.sh\"}" |
      jq "del(.process.rlimits)" >/etc/containerd/cri-base.json'
}
