# A real cgroup with a 1.5-CPU quota: topo reports N = 1 and quota 1.5,
# plan binds nothing, and doctor names the same cgroup and directory. Uses cgroup v1's cpu controller, else a writable v2
# hierarchy with the cpu controller; skips when neither can be created.
source "$(dirname "$0")/../lib.sh"

[[ $(id -u) == 0 ]] || skip "creating a cgroup needs root"

# mount_of FSTYPE OPTION: the mount point of the first FSTYPE mount whose super options name OPTION.
mount_of() {
  awk -v type="$1" -v opt="$2" '{
    for (i = 7; i < NF; i++) if ($i == "-") break
    if ($(i + 1) != type) next
    n = split($(i + 3), o, ",")
    for (j = 1; j <= n; j++) if (opt == "" || o[j] == opt) { print $5; exit }
  }' /proc/self/mountinfo
}
v1=$(mount_of cgroup cpu)
v2=$(mount_of cgroup2 "")
if [[ -n $v1 ]]; then
  [[ -f $v1/cpu.cfs_quota_us && -w $v1/cgroup.procs ]] || skip "the cgroup v1 cpu controller at $v1 is not writable"
  parent=$v1
elif [[ -n $v2 && -w $v2/cgroup.subtree_control ]] && grep -qw cpu "$v2/cgroup.controllers" 2>/dev/null; then
  parent=$v2
  grep -qw cpu "$parent/cgroup.subtree_control" || echo +cpu >"$parent/cgroup.subtree_control" 2>/dev/null ||
    skip "cannot enable the v2 cpu controller under $parent"
else
  skip "no cgroup v1 cpu controller and no writable v2 hierarchy with the cpu controller"
fi
dir=$parent/mptrain-test-$$

cleanup() {
  if [[ -d $dir ]]; then
    while read -r pid; do echo "$pid" >"$parent/cgroup.procs" 2>/dev/null; done <"$dir/cgroup.procs"
    rmdir "$dir" 2>/dev/null
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

mkdir "$dir" 2>/dev/null || skip "cannot create $dir"
if [[ $parent == "$v1" ]]; then
  echo 100000 >"$dir/cpu.cfs_period_us" && echo 150000 >"$dir/cpu.cfs_quota_us" || skip "cannot set the v1 quota"
else
  echo "150000 100000" >"$dir/cpu.max" || skip "cannot set cpu.max"
fi

(
  echo "$BASHPID" >"$dir/cgroup.procs" || exit 1
  "$MPTRAIN" topo --json >"$WORK/topo.json" 2>"$WORK/topo.err"
  "$MPTRAIN" plan -n 1 --json >"$WORK/plan.json" 2>"$WORK/plan.err"
  "$MPTRAIN" doctor --pid "$BASHPID" --duration 0.3 --interval 100ms --fail-on never --json \
    >"$WORK/doctor.json" 2>"$WORK/doctor.err"
  echo "$BASHPID" >"$parent/cgroup.procs"
) || fail "could not run mptrain inside $dir"

cp "$WORK/topo.json" "$WORK/out"
expect_json '.usable_cpus == 1 and .cgroup.quota_cpus == 1.5'
expect_json ".cgroup.path | endswith(\"mptrain-test-$$\")"
path=$(jq -r .cgroup.path "$WORK/topo.json")
quota_dir=$(dirname "$(jq -r .cgroup.quota_file "$WORK/topo.json")")
cp "$WORK/doctor.json" "$WORK/out"
expect_json ".cgroups | any(.path == \"$path\" and .dir == \"$quota_dir\" and .quota_cpus == 1.5)"
cp "$WORK/plan.json" "$WORK/out"
expect_json '.usable_cpus == 1 and .threads_per_process == 1'
if jq -e '.usable_cpu_list | test("[,-]")' "$WORK/topo.json" >/dev/null; then
  expect_json '.bind == "none" and (.bind_reason | test("quota"))'
fi
