# A job that makes a cgroup of its own inside the run's (a container
# runtime, systemd-run --scope, a nested tool) and moves a process there:
# that process ends with the run, and the run's cgroup goes, inner ones
# first (rmdir refused a cgroup with children, so the run's stayed). A
# member of the workers' process group that leaves the run's cgroup without
# setsid ends with the run too.
source "$(dirname "$0")/../lib.sh"
mount=$(findmnt -t cgroup2 -n -o TARGET 2>/dev/null | head -1)
[[ -n $mount ]] || skip "no cgroup v2 mount here (the v1 freezer case is covered by the other run-cgroup tests)"
cat >"$WORK/w.sh" <<'SCRIPT'
#!/bin/bash
line=$(grep '^0::' /proc/self/cgroup)
own="$MOUNT${line#0::}"
case $own in */mptrain-run-*) ;; *) echo "no run cgroup"; exit 0 ;; esac
mkdir "$own/inner" || exit 3
sleep 61 &
echo $! >"$OUT/pid"
echo $! >"$own/inner/cgroup.procs" || exit 4
echo "$own" >"$OUT/cgroup"
SCRIPT
chmod +x "$WORK/w.sh"
MOUNT=$mount OUT=$WORK MPTRAIN_RUN_CGROUP=v2 run_mptrain run -n 1 -- "$WORK/w.sh"
if [[ $code == 1 ]] && grep -q "MPTRAIN_RUN_CGROUP=v2" "$WORK/err"; then
  skip "no v2 run cgroup can be made here"
fi
expect_code 0
grep -q "no run cgroup" "$WORK/out" && skip "the run made no v2 cgroup here"
[[ -s $WORK/cgroup ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "the job could not make its inner cgroup"; }
pid=$(cat "$WORK/pid")
for _ in $(seq 40); do [[ -e /proc/$pid ]] || break; sleep 0.05; done
[[ ! -e /proc/$pid ]] || fail "the process in the job's own cgroup outlived the run"
[[ ! -d $(cat "$WORK/cgroup") ]] || fail "the run's cgroup stayed: $(cat "$WORK/cgroup")"

# A process of the workers' process group that moves itself out of the run's cgroup (no setsid) does
# not escape: only setsid and leaving the cgroup together may.
cat >"$WORK/out.sh" <<'SCRIPT'
#!/bin/bash
sleep 62 &
echo $! >"$OUT/pid2"
echo $! >"$MOUNT/cgroup.procs" || exit 4
SCRIPT
chmod +x "$WORK/out.sh"
MOUNT=$mount OUT=$WORK MPTRAIN_RUN_CGROUP=v2 run_mptrain run -n 1 -- "$WORK/out.sh"
expect_code 0
pid=$(cat "$WORK/pid2")
for _ in $(seq 40); do [[ -e /proc/$pid ]] || break; sleep 0.05; done
[[ ! -e /proc/$pid ]] || { kill "$pid"; fail "a group member that left the run's cgroup outlived the run"; }
exit 0
