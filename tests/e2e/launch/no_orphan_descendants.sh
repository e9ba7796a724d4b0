# A SIGKILLed mptrain takes its workers' own children with it: a worker
# script's `sleep` (the case PR_SET_PDEATHSIG alone misses, since it reaches
# only direct children) and a grandchild in the background. Without a
# cgroup of the run, a descendant that leaves the workers' process group
# (setsid) escapes, as mptrain-run(1) says (descendants_sigkill.sh: with one
# it does not).
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

cat >"$WORK/w.sh" <<SCRIPT
#!/bin/bash
sleep 61 &
echo \$! > $WORK/background.\$RANK
sh -c 'echo \$\$ > $WORK/grandchild.'\$RANK'; exec sleep 62' &
setsid sh -c 'echo \$\$ > $WORK/escaped.'\$RANK'; exec sleep 63' &
sleep 64
SCRIPT
chmod +x "$WORK/w.sh"
MPTRAIN_RUN_CGROUP=off start_mptrain run -n 2 -- "$WORK/w.sh"
wait_for 20 files_exist "$WORK"/background.{0,1} "$WORK"/grandchild.{0,1} "$WORK"/escaped.{0,1} ||
  fail "workers did not start their children"
kept=$(cat "$WORK"/background.{0,1} "$WORK"/grandchild.{0,1})
escaped=$(cat "$WORK"/escaped.{0,1})
alive $kept || fail "the workers' children are not running"
signal_and_wait KILL
wait_for 10 none_alive $kept || fail "descendants $kept outlived a SIGKILLed mptrain"
# What called setsid is outside the group, as documented; clean it up.
kill $escaped 2>/dev/null
true
