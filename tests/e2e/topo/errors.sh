# topo errors: a bad description is a usage error (2), a topology file that
# cannot be read or is not hwloc XML a runtime failure (1), as bad data is.
source "$(dirname "$0")/../lib.sh"

run_mptrain topo --topology-synthetic "package:two"
expect_code 2
expect_stderr '^mptrain: error: bad synthetic topology'

run_mptrain topo --topology "$MPTRAIN_TEST_DATA/affinity/broken.xml"
expect_code 1
expect_stderr '^mptrain: error: --topology: .*hwloc XML'

run_mptrain topo --topology "$WORK/missing.xml"
expect_code 1
expect_stderr '^mptrain: error: --topology: .*No such file'

MPTRAIN_FSROOT="$WORK/empty-root" run_mptrain topo --json
expect_code 1
expect_stderr '^mptrain: error: .*empty-root/sys/devices/system/cpu/online: No such file'
[[ ! -s "$WORK/out" ]] || fail "a failed topo --json printed something on stdout"
