# Recorded cgroup v2 trees: cpu.max quota, nested cgroups, no limit.
source "$(dirname "$0")/../lib.sh"

MPTRAIN_FSROOT="$MPTRAIN_TEST_DATA/cgroup-v2-quota" run_mptrain topo --json
expect_code 0
expect_json '.cgroup.version == 2 and .cgroup.quota_cpus == 2.5 and .cgroup.cpuset == "0-7" and .usable_cpus == 2'

MPTRAIN_FSROOT="$MPTRAIN_TEST_DATA/cgroup-v2-nested" run_mptrain topo --json
expect_code 0
expect_json '.cgroup.quota_cpus == 3 and .cgroup.cpuset == "2-5" and .usable_cpus == 3'

MPTRAIN_FSROOT="$MPTRAIN_TEST_DATA/cgroup-v2-nolimit" run_mptrain topo --json
expect_code 0
expect_json '.cgroup.quota_cpus == null and .usable_cpus == 3 and .limited_by == "affinity"'
