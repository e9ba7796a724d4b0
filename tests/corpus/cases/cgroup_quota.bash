description="busy threads in a cgroup with a 1-CPU quota: N threads (naive) vs 1 thread (fixed)"
variants=(naive fixed)
expected_naive=oversubscribed
expected_fixed=healthy
requires="root and a writable cgroup cpu controller (v1 /sys/fs/cgroup/cpu, or v2 with +cpu)"
check_requires() {
  ((N >= 2)) || why_not "needs at least 2 usable CPUs for a quota of 1 to bind, have $N"
  if [[ -w /sys/fs/cgroup/cpu/cgroup.procs && -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]]; then
    group=/sys/fs/cgroup/cpu/mptrain-corpus-$$
  elif [[ -w /sys/fs/cgroup/cgroup.procs ]] && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
    group=/sys/fs/cgroup/mptrain-corpus-$$
  else
    why_not "needs root and a writable cgroup cpu controller (v1 /sys/fs/cgroup/cpu or v2 with +cpu)"
  fi
}
# The group, with a quota of one CPU (100 ms per 100 ms period).
setup() {
  burn=$(compiled burn)
  mkdir "$group"
  if [[ -f $group/cpu.cfs_quota_us ]]; then
    echo 100000 >"$group/cpu.cfs_period_us"
    echo 100000 >"$group/cpu.cfs_quota_us"
  else
    echo "100000 100000" >"$group/cpu.max"
  fi
}
# Moves any straggler to the parent group, then removes the group.
cleanup() {
  [[ -n "${group:-}" && -d "$group" ]] || return 0
  local pid try
  # A process may exit between the listing and the move, and a group keeps
  # its exited tasks a moment: neither may fail a run that was judged.
  for try in 1 2 3 4 5 6 7 8 9 10; do
    for pid in $(cat "$group/cgroup.procs" 2>/dev/null); do
      echo "$pid" >"$(dirname "$group")/cgroup.procs" 2>/dev/null || true
    done
    rmdir "$group" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "cgroup_quota: could not remove $group" >&2
}
in_group() { scope=(-- bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' in_group "$group" "$@"); }
scope_naive() { in_group "$burn" "$N" 3; }
scope_fixed() { in_group "$burn" 1 3; }
