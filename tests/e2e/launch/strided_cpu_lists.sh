# The messages that name CPU lists give them in the short form mptrain also reads: usable CPUs
# 8000,8002,…,8014 (a recorded cgroup, beyond any real machine's CPUs) are "8000-8014:2".
source "$(dirname "$0")/../lib.sh"
tree="$MPTRAIN_TEST_DATA/cgroup-v2-strided"

MPTRAIN_FSROOT="$tree" run_mptrain run -n 1 --dry-run -- true
expect_code 2
expect_stderr '^mptrain: error: none of the usable CPUs 8000-8014:2 is in the topology of this machine \('

MPTRAIN_FSROOT="$tree" run_mptrain plan -n 1
expect_code 2
expect_stderr '^mptrain: error: none of the usable CPUs 8000-8014:2 is in the topology of this machine \('

