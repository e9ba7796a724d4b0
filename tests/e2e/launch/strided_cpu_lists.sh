# The messages that name CPU lists give them in the short form mptrain also reads: usable CPUs
# 8000,8002,…,8014 (a recorded cgroup, beyond any real machine's CPUs) are "8000-8014:2".
source "$(dirname "$0")/../lib.sh"
tree="$MPTRAIN_TEST_DATA/cgroup-v2-strided"

MPTRAIN_FSROOT="$tree" run_mptrain run -n 1 --dry-run -- true
[[ "$code" != 0 ]] || { cat "$WORK/out" "$WORK/err"; fail "a plan on CPUs this machine lacks was made"; }
expect_stderr '^mptrain: error: .*none of the usable CPUs 8000-8014:2 is in the topology'

MPTRAIN_FSROOT="$tree" run_mptrain plan -n 2 --topology-synthetic "package:1 core:4 pu:1"
[[ "$code" != 0 ]] || { cat "$WORK/out" "$WORK/err"; fail "a plan on CPUs the topology lacks was made"; }
expect_stderr 'none of the usable CPUs 8000-8014:2 is in the topology of synthetic: package:1 core:4 pu:1 \(0-3\)'
