# `topo` (what limits N) and `doctor` (what throttles the watched processes)
# locate a process's CPU cgroup through the same mount table, so they name
# the same cgroup and directory: in a recorded container whose hierarchies
# are mounted under unusual names and show only its subtree, and on this
# machine for this shell's own cgroup.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"

tree="$MPTRAIN_TEST_DATA/cgroup-v1-odd-mounts"
MPTRAIN_FSROOT="$tree" run_mptrain topo --json
expect_code 0
expect_json '.cgroup.version == 1 and .cgroup.path == "/kubepods/pod9/ctr1/train"'
expect_json '.cgroup.quota_cpus == 0.5 and .cgroup.quota_file == "/run/cg/cpu/train/cpu.cfs_quota_us"'
expect_json '.cgroup.cpuset == "4-7" and .usable_cpus == 1'
topo_path=$(json .cgroup.path)
topo_dir=$(dirname "$(json .cgroup.quota_file)")

# Process 1 of the recorded tree sits in the same cgroup; kill(1, 0) finds a real pid 1 here.
MPTRAIN_FSROOT="$tree" run_mptrain doctor --pid 1 --duration 0.3 --interval 100ms --fail-on never --json
expect_code 0
expect_json ".cgroups | any(.path == \"$topo_path\" and .dir == \"$topo_dir\" and .quota_cpus == 0.5)"
expect_json '.cgroups | any(.path == "/kubepods/pod9/ctr1" and .dir == "/run/cg/cpu" and .quota_cpus == 1.5)'

# This machine: the shell running this script and mptrain share their cgroup.
run_mptrain topo --json
expect_code 0
version=$(json .cgroup.version)
path=$(json .cgroup.path)
[[ "$version" != 0 && "$path" != null ]] || skip "no cgroup CPU controller is mounted here"
sleep 5 &
sleeper=$!
run_mptrain doctor --pid "$sleeper" --duration 0.3 --interval 100ms --fail-on never --json
kill "$sleeper" 2>/dev/null
expect_code 0
if [[ "$path" == / ]]; then
  # The root of a hierarchy has no quota and is not sampled for throttling.
  expect_json '.cgroups == []'
else
  expect_json ".cgroups[-1].path == \"$path\" and .cgroups[-1].version == $version"
fi
