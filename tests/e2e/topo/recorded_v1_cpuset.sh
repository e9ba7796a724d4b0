# A recorded cgroup v1 tree with a restricted cpuset: N is the cpuset's size.
source "$(dirname "$0")/../lib.sh"

MPTRAIN_FSROOT="$MPTRAIN_TEST_DATA/cgroup-v1-cpuset" run_mptrain topo --json
expect_code 0
expect_json '.cgroup.version == 1 and .cgroup.cpuset == "0-1,4" and .cgroup.quota_cpus == null'
expect_json '.usable_cpus == 3 and .usable_cpu_list == "0-1,4" and .limited_by == "cpuset"'
