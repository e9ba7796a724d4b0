# A SIGKILLed mptrain takes every descendant of its workers with it where it
# made a cgroup for the run (v2, and v1's freezer hierarchy): a `set -m`
# job, a double-forked daemon and a setsid process, which left the workers'
# process group, end too (the watchdog empties the cgroup and removes it);
# without a cgroup, they end too once mptrain has told its watchdog about them.
# ctest: timeout 120
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
trap 'kill -9 $(cat "$WORK"/*/pid.* 2>/dev/null) 2>/dev/null; rm -rf "$WORK"' EXIT

export DESCENDANTS="$PROGRAMS/descendants.bash"
cat >"$WORK/w.sh" <<'SCRIPT'
#!/bin/bash
source "$DESCENDANTS"
grep -h mptrain-run- /proc/$$/cgroup >"$OUT/cgroup"
echo started >"$OUT/started"
exec sleep 65
SCRIPT
chmod +x "$WORK/w.sh"

# cgroup_gone NAME: no cgroup directory NAME is left under /sys/fs/cgroup.
cgroup_gone() { ! find /sys/fs/cgroup -maxdepth 6 -type d -name "$1" 2>/dev/null | grep . >/dev/null; }

made=0
for mode in v2 v1; do
  export OUT="$WORK/$mode"
  mkdir -p "$OUT"
  MPTRAIN_RUN_CGROUP=$mode start_mptrain run -n 1 -- "$WORK/w.sh"
  wait_for 30 files_exist "$OUT/started" || fail "$mode: the worker did not start its descendants"
  pids=$(cat "$OUT"/pid.*)
  for pid in $pids; do alive "$pid" || fail "$mode: descendant $pid is not running"; done
  if [[ ! -s "$OUT/cgroup" ]]; then
    echo "note: no $mode cgroup could be made here" >&2
    signal_and_wait TERM
    continue
  fi
  made=$((made + 1))
  signal_and_wait KILL
  wait_for 20 none_alive $pids || fail "$mode: descendants $pids outlived a SIGKILLed mptrain"
  # The watchdog removes the cgroup once it is empty.
  wait_for 20 cgroup_gone "mptrain-run-$launcher-*" || fail "$mode: the run's cgroup $(cat "$OUT/cgroup") was left behind"
done

# Without a cgroup the watchdog kills what mptrain last told it had left the
# workers' process group (mptrain looks once a second; 3 s is to spare).
export OUT="$WORK/off"
mkdir -p "$OUT"
MPTRAIN_RUN_CGROUP=off start_mptrain run -n 1 -- "$WORK/w.sh"
wait_for 30 files_exist "$OUT/started" || fail "off: the worker did not start its descendants"
[[ ! -s "$OUT/cgroup" ]] || fail "MPTRAIN_RUN_CGROUP=off made a cgroup: $(cat "$OUT/cgroup")"
pids=$(cat "$OUT"/pid.*)
sleep 3
signal_and_wait KILL
wait_for 20 none_alive $pids || fail "off: descendants $pids outlived a SIGKILLed mptrain"

((made > 0)) || skip "no cgroup for the run can be made here (neither v2 nor v1's freezer is writable)"
