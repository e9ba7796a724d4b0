# Helpers for the launcher's end-to-end scripts (sourced after ../lib.sh; the
# .bash suffix keeps this file from being registered as a test itself).

# PROGRAMS: the folder of the test programs the scripts run (programs/).
PROGRAMS="$MPTRAIN_SOURCE_DIR/tests/e2e/launch/programs"

# need_cpus M: skips unless `mptrain plan -n M` works here (M usable CPUs).
need_cpus() {
  "$MPTRAIN" plan -n "$1" >/dev/null 2>&1 || skip "fewer than $1 usable CPUs for -n $1"
}

# run_logged OPTIONS...: `mptrain run -n 2 --log-dir $WORK/logs OPTIONS` (a new $WORK/logs) of a
# worker writing "out RANK" on stdout and "err RANK" on stderr; expects exit 0.
run_logged() {
  rm -rf "$WORK/logs"
  run_mptrain run -n 2 --log-dir "$WORK/logs" "$@" -- sh -c 'echo "out $RANK"; echo "err $RANK" >&2'
  expect_code 0
}
# expect_logged RANK STREAM...: each $WORK/logs/rank-RANK.STREAM (out, err) holds the line "STREAM RANK".
expect_logged() {
  local rank=$1 stream
  shift
  for stream in "$@"; do
    [[ $(cat "$WORK/logs/rank-$rank.$stream") == "$stream $rank" ]] || fail "rank-$rank.$stream is wrong"
  done
}
# expect_not_logged RANK STREAM...: no $WORK/logs/rank-RANK.STREAM was written.
expect_not_logged() {
  local rank=$1 stream
  shift
  for stream in "$@"; do
    [[ ! -e "$WORK/logs/rank-$rank.$stream" ]] || fail "rank-$rank.$stream was written though its stream is not logged"
  done
}

# signal_sleeping_run N SIGNAL: starts `mptrain run -n N` (start_mptrain) of workers that handle no
# signal (they exec sleep 60), waits until they run, then sends SIGNAL to mptrain and waits for it to
# end; its exit status in $code.
signal_sleeping_run() {
  local started=() rank
  rm -f "$WORK"/started.*
  start_mptrain run -n "$1" -- sh -c "echo \$\$ > $WORK/started.\$RANK; exec sleep 60"
  for ((rank = 0; rank < $1; rank++)); do started+=("$WORK/started.$rank"); done
  wait_for 20 files_exist "${started[@]}" || fail "workers did not start"
  signal_and_wait "$2"
}

# alive PID: true while PID exists and is not a zombie.
alive() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n "$state" && "$state" != Z ]]
}

# wait_for SECONDS COMMAND...: polls COMMAND every 50 ms until it succeeds; false on timeout.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}

# files_exist PATTERN...: true when every argument names an existing file.
files_exist() {
  local f
  for f in "$@"; do [[ -s "$f" ]] || return 1; done
}

# none_alive PID...: true when none of the PIDs is alive.
none_alive() {
  local pid
  for pid in "$@"; do ! alive "$pid" || return 1; done
}

# quota_cgroup NAME: makes cgroup NAME with a 1-CPU quota (100000 µs per 100000 µs; v1's
# /sys/fs/cgroup/cpu, or v2 with +cpu), its directory in $group, removed when the script exits; skips,
# saying why, where it cannot be made.
quota_cgroup() {
  if [[ -w /sys/fs/cgroup/cpu/cgroup.procs && -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]]; then
    group=/sys/fs/cgroup/cpu/$1
    mkdir "$group" 2>/dev/null || skip "cannot create $group (not root, or a read-only cgroup file system)"
    trap 'rmdir "$group" 2>/dev/null; rm -rf "$WORK"' EXIT
    { echo 100000 >"$group/cpu.cfs_period_us" && echo 100000 >"$group/cpu.cfs_quota_us"; } ||
      skip "cannot set a CPU quota on $group"
  elif [[ -f /sys/fs/cgroup/cgroup.subtree_control ]] && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control; then
    group=/sys/fs/cgroup/$1
    mkdir "$group" 2>/dev/null || skip "cannot create $group (not root, or a read-only cgroup file system)"
    trap 'rmdir "$group" 2>/dev/null; rm -rf "$WORK"' EXIT
    echo "100000 100000" >"$group/cpu.max" || skip "cannot set a CPU quota on $group"
  else
    skip "no writable cgroup cpu controller (v1 /sys/fs/cgroup/cpu or v2 with +cpu) for a CPU quota"
  fi
}

# in_quota COMMAND...: runs COMMAND in the cgroup $group, its stdout in $WORK/out, stderr in $WORK/err, code in $code.
in_quota() {
  bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$group" "$@" >"$WORK/out" 2>"$WORK/err"
  code=$?
}
