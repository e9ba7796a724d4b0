# The binary answers --version and --help, and maps usage errors to exit 2.
source "$(dirname "$0")/../lib.sh"

run_mptrain --version
expect_code 0
grep -Eq '^mptrain [0-9]+\.[0-9]+' "$WORK/out" || fail "no version on stdout"

run_mptrain --help
expect_code 0
grep -q 'topo' "$WORK/out" || fail "--help does not list topo"

run_mptrain
expect_code 2
expect_stderr '^mptrain: error:'

run_mptrain frobnicate
expect_code 2
expect_stderr '^mptrain: error:'

run_mptrain plan --no-such-option
expect_code 2
expect_stderr '^mptrain: error:.*no-such-option'
