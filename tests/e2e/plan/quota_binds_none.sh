# A CPU quota that limits N (recorded v1 tree: 1.5 CPUs) makes the default binding none.
source "$(dirname "$0")/../lib.sh"

MPTRAIN_FSROOT="$MPTRAIN_TEST_DATA/cgroup-v1-quota" run_mptrain plan -n 1 --json
expect_code 0
expect_json '.usable_cpus == 1 and .bind == "none" and .threads_per_process == 1'
expect_json '.bind_reason | test("quota of 1.5 CPUs")'
