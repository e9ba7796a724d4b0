# The doctor gives the usable CPUs in the short form mptrain also reads: a recorded cgroup whose
# cpuset the kernel writes as 8000,8002,…,8014 (CPUs beyond any real machine's) is "8000-8014:2".
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
tree="$MPTRAIN_TEST_DATA/cgroup-v2-strided"

# Process 1 of the recorded tree; kill(1, 0) finds a real pid 1 here.
MPTRAIN_FSROOT="$tree" run_mptrain doctor --pid 1 --duration 0.3 --interval 100ms --fail-on never
expect_code 0
grep -Eq '^  usable CPUs: +8 \(8000-8014:2\)$' "$WORK/out" || { cat "$WORK/out"; fail "no short usable CPU list"; }

MPTRAIN_FSROOT="$tree" run_mptrain doctor --pid 1 --duration 0.3 --interval 100ms --fail-on never --json
expect_code 0
expect_json '.usable_cpus == 8 and .usable_cpu_list == "8000-8014:2"'
