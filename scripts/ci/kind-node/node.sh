# shellcheck shell=bash
# node.sh：base 映像檔與節點映像檔（建置步驟 8 與 9）。
# node.sh: the base image and the node image (build steps 8 and 9).
# 由 scripts/ci/build-kind-node-image.sh source，使用它的設定與 WORK 目錄；不單獨執行。
# Sourced by scripts/ci/build-kind-node-image.sh, using its settings and WORK directory; not run on its own.

# 8. base 映像檔：清掉建置時的暫存，封存後 docker load。 / 8. The base image: clear what building left behind, archive it, docker load.
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

# 9. 節點映像檔：照 kind build node-image 的做法（pkg/build/nodeimage/buildcontext.go），但映像檔從本機的封存檔匯入，
#    而不是 ctr content fetch（那需要 registry）。
# 9. The node image: as kind build node-image does it (pkg/build/nodeimage/buildcontext.go), but importing the images
#    from local archives instead of ctr content fetch (which needs a registry).
node_image() {
  local image="$1" id b tar
  id="informer-walkthrough-kind-build-$$"
  # shellcheck disable=SC2034 # build-kind-node-image.sh 的 cleanup 用它。 / build-kind-node-image.sh's cleanup uses it.
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
