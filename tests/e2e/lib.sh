# Shared helpers for end-to-end scripts. Source it first:
#   source "$(dirname "$0")/../lib.sh"
# CTest sets MPTRAIN (the binary), MPTRAIN_SOURCE_DIR and MPTRAIN_TEST_DATA.
set -uo pipefail
: "${MPTRAIN:?run through ctest, or set MPTRAIN to the mptrain binary}"
: "${MPTRAIN_SOURCE_DIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${MPTRAIN_TEST_DATA:=$MPTRAIN_SOURCE_DIR/tests/data}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mptrain-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Each script's runs record what they hold in a directory of its own: the
# scripts CTest runs side by side must not plan around each other's runs.
export MPTRAIN_RUNS_DIR=$WORK/runs
# A script's runs start one after another: they plan at once, without the
# start window in which runs started together see each other (the sharing
# tests set it themselves).
export MPTRAIN_START_WINDOW=0
# What mptrain tune saves for `run --tuned` stays in the script's own folder, not the user's cache.
export XDG_CACHE_HOME=$WORK/cache

# close_inherited_fds: closes every descriptor above 2 that this shell inherited (make, CI
# runners and shells with `exec 9>lock` leave some open), for a case that counts descriptors.
close_inherited_fds() {
  local fd fds=()
  for fd in /proc/$BASHPID/fd/*; do
    fd=${fd##*/}
    ((fd > 2)) && fds+=("$fd")
  done
  for fd in "${fds[@]}"; do
    { exec {fd}>&-; } 2>/dev/null || true
  done
}
# sanitizer_build: true when $MPTRAIN is built with AddressSanitizer or ThreadSanitizer (linked
# statically by clang, dynamically by gcc: the runtime's entry point is named in the binary either way).
sanitizer_build() { grep -qaE '__(asan|tsan)_init' "$MPTRAIN"; }
# test_program NAME: prints the path of the client program NAME that CMake builds once
# (tests/programs/CMakeLists.txt), or fails saying how to build it; use as
#   omp=$(test_program omp_self_sized_gnu) || exit 1
test_program() {
  local path=${MPTRAIN_TEST_PROGRAMS:-$(dirname "$MPTRAIN")/tests/programs}/$1
  [[ -x $path ]] || fail "the test program $path is not built: cmake --build BUILD --target mptrain_test_programs (it needs gcc, clang and libomp-dev: scripts/setup.sh --test)"
  echo "$path"
}
# use_program NAME PROGRAM: copies the built test program PROGRAM to $WORK/NAME, so that the
# process runs under the name the script expects, e.g. use_program omp_gnu omp_self_sized_gnu.
use_program() {
  local path
  path=$(test_program "$2") || exit 1
  cp "$path" "$WORK/$1" || fail "cannot copy $path to $WORK/$1"
}
# descendants PID: the pids of every living descendant of PID, one per line (children first).
descendants() {
  local child
  for child in $(pgrep -P "$1"); do
    echo "$child"
    descendants "$child"
  done
}
# fail MESSAGE: report and exit 1.
fail() { echo "FAIL: $*" >&2; exit 1; }
# skip REASON: report why and exit 77 (CTest's skip code here).
skip() { echo "SKIP: $*" >&2; exit 77; }
# run_mptrain ARGS...: runs mptrain; stdout in $WORK/out, stderr in $WORK/err, code in $code.
run_mptrain() {
  "$MPTRAIN" "$@" >"$WORK/out" 2>"$WORK/err"
  code=$?
}
# expect_code N: the last run_mptrain exited N, else fail showing its output.
expect_code() {
  [[ "$code" == "$1" ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "expected exit $1, got $code"; }
}
# start_mptrain ARGS...: starts mptrain ARGS in the background, stdout in $WORK/out and stderr in
# $WORK/err as run_mptrain; its pid in $launcher. A prefix VAR=VALUE start_mptrain … reaches it.
start_mptrain() { start_command "$MPTRAIN" "$@"; }
# start_command COMMAND...: start_mptrain for a COMMAND that execs mptrain (env --ignore-signal=HUP "$MPTRAIN" …).
start_command() {
  "$@" >"$WORK/out" 2>"$WORK/err" &
  launcher=$!
}
# signal_and_wait SIGNAL [PID]: sends SIGNAL (TERM, KILL, …) to PID ($launcher by default), started in
# the background, and waits for it to end; its exit status in $code (for expect_code).
signal_and_wait() {
  kill -s "$1" "${2:-$launcher}"
  wait_exit "${2:-$launcher}"
}
# wait_exit [PID]: waits for PID ($launcher by default), started in the background, to end; its exit
# status in $code. (The shell's own "Killed" line for it is not printed.)
wait_exit() {
  wait "${1:-$launcher}" 2>/dev/null
  code=$?
}
# json FILTER: applies jq FILTER to the last run's stdout.
json() { jq -e -r "$1" "$WORK/out"; }
# expect_json FILTER: the jq FILTER is true on the last run's stdout.
expect_json() {
  jq -e "$1" "$WORK/out" >/dev/null || { cat "$WORK/out" >&2; fail "JSON check failed: $1"; }
}
# expect_stderr PATTERN: the last run's stderr matches the extended regex PATTERN.
expect_stderr() {
  grep -Eq -- "$1" "$WORK/err" || { cat "$WORK/err" >&2; fail "stderr does not match: $1"; }
}
# refused CODE PATTERN ARGS...: mptrain ARGS is refused: within 20 s it exits CODE, its stderr is the one
# line "mptrain: error: …PATTERN" (for ^PATTERN: the message starts with PATTERN), stdout stays empty,
# and nothing ran: no $WORK/ran, the file a command given as `-- touch "$WORK/ran"` would make.
# A prefix VAR=VALUE refused … reaches mptrain.
refused() {
  local want=$1 pattern=$2
  shift 2
  if [[ $pattern == ^* ]]; then pattern=${pattern#^}; else pattern=".*$pattern"; fi
  timeout 20 "$MPTRAIN" "$@" >"$WORK/out" 2>"$WORK/err"
  code=$?
  [[ $code != 124 ]] || fail "mptrain $* hung"
  expect_code "$want"
  expect_stderr "^mptrain: error: $pattern"
  [[ $(wc -l <"$WORK/err") == 1 ]] || { cat "$WORK/err" >&2; fail "mptrain $* said more than its error"; }
  [[ ! -s "$WORK/out" ]] || { cat "$WORK/out" >&2; fail "mptrain $* printed a report"; }
  [[ ! -e "$WORK/ran" ]] || fail "mptrain $* ran the command"
}
# expect_usage_error PATTERN: the last run exited 2 with "mptrain: error: …PATTERN" on stderr.
expect_usage_error() {
  expect_code 2
  expect_stderr "^mptrain: error: .*$1"
}

# need_unbound_cpus M: skips unless `mptrain topo` finds M usable CPUs and this process is not
# bound to some of them already (taskset); sets $usable to the usable CPU list.
need_unbound_cpus() {
  run_mptrain topo --json
  expect_code 0
  [[ $(json .usable_cpus) -ge $1 ]] || skip "needs $1 usable CPUs"
  [[ $(json .limited_by) != affinity ]] || skip "this process is bound to some CPUs already (taskset?)"
  usable=$(json .usable_cpu_list)
}

# A jq definition to put before a filter: `cpus` turns a CPU list string
# ("0-2,5", strides "0-14:2" and "0-25:2/8" too) into the array of its CPU numbers ([0,1,2,5]), e.g.
#   jq "$cpus"' .workers[0].cpus | cpus' plan.json
cpus='def cpus: [split(",")[] | select(. != "") | (split(":") + ["1"])[0:2] as [$r, $s] | ($s | split("/") | map(tonumber)) as $st | (if ($st | length) == 1 then [1, $st[0]] else $st end) as [$u, $g] | if ($r | test("-")) then ($r | split("-") | map(tonumber)) as [$a, $b] | range($a; $b + 1; $g) as $start | range($start; [$start + $u, $b + 1] | min) else ($r | tonumber) end];'
