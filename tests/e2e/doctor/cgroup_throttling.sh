# A job in a cgroup with a 0.5-CPU quota running 2 busy threads: a
# cgroup_throttling finding with the quota and a fix. Under a 1% quota a
# busy loop runs almost nothing, yet it is measured and oversubscribed (a
# job denied CPU is evidence, not a sleeper). Needs a writable cpu
# controller (v1 /sys/fs/cgroup/cpu, or v2 with cpu enabled); skips otherwise.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"

name="mptrain-doctor-$$"
if [[ -w /sys/fs/cgroup/cpu/cgroup.procs && -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]]; then
  group=/sys/fs/cgroup/cpu/$name
  limit() { echo 100000 >"$group/cpu.cfs_period_us" && echo "${1:-50000}" >"$group/cpu.cfs_quota_us"; }
elif [[ -f /sys/fs/cgroup/cgroup.subtree_control ]] && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control; then
  group=/sys/fs/cgroup/$name
  limit() { echo "${1:-50000} 100000" >"$group/cpu.max"; }
else
  skip "no writable cgroup cpu controller (v1 /sys/fs/cgroup/cpu or v2 with +cpu)"
fi
cleanup() {
  # The job has exited by now; move any straggler out so the group can go.
  if [[ -d "$group" ]]; then
    for pid in $(cat "$group/cgroup.procs" 2>/dev/null); do
      kill -9 "$pid" 2>/dev/null || echo "$pid" >"$(dirname "$group")/cgroup.procs"
    done
    sleep 0.2
    rmdir "$group" 2>/dev/null
  fi
  rm -rf "$WORK"
}
mkdir "$group" 2>/dev/null || skip "cannot create $group (not root, or a read-only cgroup file system)"
trap cleanup EXIT
limit || skip "cannot set a CPU quota on $group"

run_mptrain doctor --json -- bash -c "echo \$\$ >$group/cgroup.procs && exec $BURN 2 2.5"
expect_finding cgroup_throttling
expect_json '[.findings[] | select(.kind == "cgroup_throttling")][0].numbers.throttled_ratio > 0.5'
expect_json '[.findings[] | select(.kind == "cgroup_throttling")][0].numbers.quota_cpus == 0.5'
expect_json '[.findings[] | select(.kind == "cgroup_throttling")][0].fix | test("OMP_NUM_THREADS=1")'
expect_json '.verdict == "oversubscribed"'
expect_code 3

# 1% of one CPU for a busy shell loop.
limit 1000 || fail "cannot set a 1% quota on $group"
run_mptrain doctor --json -- sh -c "echo \$\$ >$group/cgroup.procs && timeout 3 sh -c 'while :; do :; done'; exit 0"
[[ $code == 3 ]] || { cat "$WORK/err" >&2; fail "a busy loop held to 1% of a CPU exited $code, not 3 (oversubscribed)"; }
expect_json '.measured == true'
expect_finding cgroup_throttling
expect_json '[.findings[] | select(.kind == "cgroup_throttling")][0].numbers.quota_cpus == 0.01'
