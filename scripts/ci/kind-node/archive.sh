# shellcheck shell=bash
# archive.sh：不經 Docker daemon 寫出映像檔封存檔，以及組出映像檔根目錄的小工具（建置步驟 7）。
# archive.sh: image archives written without the Docker daemon, and the helpers that assemble an image's root (build step 7).
# 由 scripts/ci/build-kind-node-image.sh source，使用它的設定與 WORK 目錄；不單獨執行。
# Sourced by scripts/ci/build-kind-node-image.sh, using its settings and WORK directory; not run on its own.

# 7. 映像檔封存檔：跟 docker save 同樣格式（manifest.json、設定檔、一層 layer.tar），由 tar 與 jq 直接寫出，
#    不經 Docker daemon，所以不會覆寫 daemon 裡同名的映像檔。
# 7. Image archives, in docker save's format (manifest.json, a config, one layer.tar), written directly with tar and jq,
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
