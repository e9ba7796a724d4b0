# A recorded cgroup v1 tree with a 1.5-CPU quota: N = 1, limited by the quota, binding none.
source "$(dirname "$0")/../lib.sh"

MPTRAIN_FSROOT="$MPTRAIN_TEST_DATA/cgroup-v1-quota" run_mptrain topo --json
expect_code 0
expect_json '.cgroup.version == 1 and .cgroup.path == "/job" and .cgroup.quota_cpus == 1.5'
expect_json '.affinity_cpus == "0-3" and .usable_cpu_list == "0-3"'
expect_json '.usable_cpus == 1 and .limited_by == "quota" and .default_bind == "none"'
expect_json '.bind_reason | test("quota")'
