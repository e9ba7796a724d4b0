# Nothing a worker started outlives a run that exits 0: a background job, a
# `set -m` job (a process group of its own), a double-forked daemon and a
# setsid process are all gone when mptrain exits, with the run's cgroup
# (v2 or v1, where one can be made here) and without it (the subreaper).
# ctest: timeout 120
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
trap 'kill -9 $(cat "$WORK"/*/pid.* 2>/dev/null) 2>/dev/null; rm -rf "$WORK"' EXIT

export DESCENDANTS="$PROGRAMS/descendants.bash"
cat >"$WORK/w.sh" <<'SCRIPT'
#!/bin/bash
sleep 61 &
echo $! >"$OUT/pid.background"
source "$DESCENDANTS"
cat /proc/$$/cgroup >"$OUT/cgroup"
echo started
SCRIPT
chmod +x "$WORK/w.sh"

for mode in auto v1 off; do
  export OUT="$WORK/$mode"
  mkdir -p "$OUT"
  MPTRAIN_RUN_CGROUP=$mode run_mptrain run -n 1 -- "$WORK/w.sh"
  expect_code 0
  expect_stderr 'exited with code 0'
  pids=$(cat "$OUT"/pid.*)
  [[ $(wc -w <<<"$pids") == 4 ]] || fail "$mode: the worker did not start its four descendants"
  for pid in $pids; do
    ! alive "$pid" || fail "$mode: pid $pid ($(cat /proc/"$pid"/cmdline | tr '\0' ' ')) outlived the run"
  done
  if [[ $mode == off ]]; then
    ! grep -q mptrain-run- "$OUT/cgroup" || fail "MPTRAIN_RUN_CGROUP=off still made a cgroup"
  fi
done

# Another value is refused before anything runs.
MPTRAIN_RUN_CGROUP=yes run_mptrain run -n 1 -- touch "$WORK/ran"
expect_code 1
expect_stderr '^mptrain: error: MPTRAIN_RUN_CGROUP=yes: give auto, v2, v1 or off'
[[ ! -e "$WORK/ran" ]] || fail "a bad MPTRAIN_RUN_CGROUP still ran the command"
