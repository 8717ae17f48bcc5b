#!/usr/bin/env bash
# walkthrough.sh：一個指令走完整個導覽：建立叢集，依序執行每個步驟，並在旁邊製造 Pod 的變化讓它觀察。
# The whole walkthrough in one command: bring a cluster up, run every step in order, and make pod changes beside it to observe.
#
#   scripts/walkthrough.sh                   every step
#   scripts/walkthrough.sh step03            only the steps whose directory name contains "step03"
#
# 之後新增的步驟自動加入：任何 stepNN-*/ 目錄，只要它在初始狀態就緒時印出一行含有
# "watching from there" 的說明，並在 Pod 被刪除時印出含有 "delete"（不分大小寫）與 Pod 名稱的一行。
# Steps added later join by themselves: any stepNN-*/ directory that prints a note containing "watching from there" once its
# initial state is ready, and a line containing "delete" (any case) and the pod's name when a pod is deleted.
set -o errexit -o nounset -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 設定（可用環境變數覆寫）/ Settings (override with environment variables)
# 每個步驟等待就緒與等待刪除事件的上限（秒）。 / How long to wait for each step to be ready, and for the delete event (seconds).
STEP_TIMEOUT="${STEP_TIMEOUT:-60}"
# scene 兩個變化之間的停頓，讓人看得清楚。 / The pause between two scene changes, so a person can follow.
SCENE_PAUSE="${SCENE_PAUSE:-1s}"

WORK_DIR=""
STEP_PID=""
# scene 輔助指令（helper_bin 建一次，之後從快取拿）。 / The scene helper (helper_bin builds it once, then takes it from the cache).
SCENE=""

cleanup() {
  if [[ -n "${STEP_PID}" ]] && kill -0 "${STEP_PID}" 2>/dev/null; then
    kill -INT "${STEP_PID}" 2>/dev/null || true
    wait "${STEP_PID}" 2>/dev/null || true
  fi
  if [[ -n "${SCENE}" ]]; then
    "${SCENE}" delete before >/dev/null 2>&1 || true
    "${SCENE}" delete demo >/dev/null 2>&1 || true
  fi
  [[ -z "${WORK_DIR}" ]] || rm -rf "${WORK_DIR}"
}

# indent 把每一行縮排四格，一行一行地寫出（不緩衝）。 / indent indents every line by four spaces, one line at a time (unbuffered).
indent() {
  local line
  while IFS= read -r line; do
    printf '    %s\n' "${line}"
  done
}

header() {
  printf '\n==== %s ====\n' "$1"
}

# wait_for_line 等到 log 檔出現符合 ERE 的一行；逾時或步驟提前結束則失敗。
# wait_for_line waits for a line matching the ERE in the log; it fails on timeout or when the step exits early.
wait_for_line() {
  local log="$1" pattern="$2" what="$3" started=${SECONDS}
  until grep -Eiq -- "${pattern}" "${log}"; do
    kill -0 "${STEP_PID}" 2>/dev/null || die "the step exited before ${what}"
    ((SECONDS - started < STEP_TIMEOUT)) || die "no ${what} after ${STEP_TIMEOUT}s"
    sleep 0.2
  done
}

# run_step 建置並在背景執行一個步驟，等它就緒後跑 scene demo，看到刪除事件後按下 Ctrl-C。
# run_step builds and starts one step in the background, runs scene demo once it is ready, and presses Ctrl-C after the delete event.
run_step() {
  local dir="$1" name log bin
  name="$(basename "${dir}")"
  log="${WORK_DIR}/${name}.log"
  header "${name}: $(head -n 1 "${dir}/README.md" | sed 's/^# *//')"
  bin="$(build_step "${name}")"
  : >"${log}"
  "${bin}" > >(tee -a "${log}") 2>&1 &
  STEP_PID=$!
  wait_for_line "${log}" '^-- .*watching from there' "its ready line (\"watching from there\")"
  "${SCENE}" demo --pause "${SCENE_PAUSE}" | indent
  wait_for_line "${log}" 'delete.*/demo( |$)' "the delete of pod demo"
  kill -INT "${STEP_PID}"
  if ! wait "${STEP_PID}"; then
    STEP_PID=""
    die "${name} did not exit cleanly after Ctrl-C"
  fi
  STEP_PID=""
}

main() {
  local filter="${1:-}" steps=() dir
  for dir in "${REPO_ROOT}"/step[0-9][0-9]-*/; do
    [[ -z "${filter}" || "$(basename "${dir}")" == *"${filter}"* ]] && steps+=("${dir%/}")
  done
  ((${#steps[@]} > 0)) || die "no step matches '${filter}'"

  header "cluster"
  RERUN=scripts/walkthrough.sh "${REPO_ROOT}/scripts/cluster-up.sh"

  WORK_DIR="$(mktemp -d)"
  trap cleanup EXIT
  SCENE="$(helper_bin scene)"
  "${SCENE}" delete demo >/dev/null 2>&1 || true
  "${SCENE}" create before app=demo >/dev/null 2>&1 || true

  for dir in "${steps[@]}"; do
    run_step "${dir}"
  done

  header "what next"
  cat <<TXT
Every step ran against the same cluster, which is still up.
- Read a step: its README.md (English) or README.zh-TW.md (繁體中文), then its lesson file.
- Run one yourself: go run ./step01-listwatcher, and in a second terminal: scripts/scene.sh demo
- Try the flags: --trace on step02, --resync 10s on step03; on step04, scripts/scene.sh annotate demo informer-lab/fail=true;
  on step05, --trace (one watch for everyone), --slow-handler 3s and --controller;
  on step06, --stale-write (409 Conflict), then --stale-write --retry-on-conflict, and --dynamic;
  on step07, --leader-elect in two terminals, then Ctrl-C on the leader.
- Break it on purpose, then fix it: docs/en/drills.md or docs/zh-TW/drills.md.
- The whole story: docs/en/README.md or docs/zh-TW/README.md.
- When you are done: ${DOWN}
TXT
}

main "$@"
