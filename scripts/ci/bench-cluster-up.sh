#!/usr/bin/env bash
# bench-cluster-up.sh：量測熱啟動的 cluster-up.sh（執行檔都已建好、叢集是停的）要多久，以及各階段花在哪裡。
# 它用自己的叢集名稱，不會動到你正在用的叢集。
# Measure a warm cluster-up.sh (binaries built, cluster down) and where its time goes.
# It uses a cluster name of its own, so it leaves the cluster you are using alone.
#
#   scripts/ci/bench-cluster-up.sh        five runs
#   RUNS=10 scripts/ci/bench-cluster-up.sh
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# 量幾次。 / How many runs.
RUNS="${RUNS:-5}"

BENCH_DIR=""

cleanup() {
  [[ -z "${BENCH_DIR}" ]] || {
    bench_env "${REPO_ROOT}/scripts/cluster-down.sh" >/dev/null 2>&1 || true
    rm -rf "${BENCH_DIR}"
  }
}

# bench_env 在基準用的叢集名稱、狀態目錄與 kubeconfig 下執行一個指令。
# bench_env runs a command with the benchmark's cluster name, state directory and kubeconfig.
bench_env() {
  CLUSTER=local CLUSTER_NAME=informer-bench INFORMER_LAB_STATE_DIR="${BENCH_DIR}/state" \
    KUBECONFIG="${BENCH_DIR}/kubeconfig" "$@"
}

main() {
  [[ "${RUNS}" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number, not '${RUNS}'"
  BENCH_DIR="$(mktemp -d)"
  trap cleanup EXIT
  log "warming up: binaries and helper built, one cluster up and down"
  bench_env "${REPO_ROOT}/scripts/cluster-up.sh" >/dev/null 2>&1 || die "cluster-up.sh failed; run it by hand to see why"
  bench_env "${REPO_ROOT}/scripts/cluster-down.sh" >/dev/null 2>&1
  local i start end times=() line
  for ((i = 1; i <= RUNS; i++)); do
    start="$(now_ms)"
    bench_env "${REPO_ROOT}/scripts/cluster-up.sh" >/dev/null 2>&1 || die "cluster-up.sh failed in run ${i}"
    end="$(now_ms)"
    times+=($((end - start)))
    line="$(grep -o '(API server .*)' "${BENCH_DIR}/state/localcluster.log" || true)"
    # default ServiceAccount 在 cluster-up.sh 回來之後才出現；等它，記下時間。 / The default ServiceAccount appears after cluster-up.sh returns; wait for it and note when.
    local waited=${SECONDS} sa=""
    until sa="$(grep -o 'default ServiceAccount [^ ]*' "${BENCH_DIR}/state/localcluster.log")"; do
      ((SECONDS - waited < 30)) || die "no default ServiceAccount 30 s after cluster-up.sh in run ${i}"
      sleep 0.1
    done
    printf 'run %d: cluster-up.sh %d ms %s; %s after the API server was ready\n' "${i}" $((end - start)) "${line}" "${sa}"
    bench_env "${REPO_ROOT}/scripts/cluster-down.sh" >/dev/null 2>&1
  done
  printf 'median of %d: %d ms\n' "${RUNS}" "$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
}

main "$@"
