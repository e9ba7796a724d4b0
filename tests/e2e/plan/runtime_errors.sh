# Unreadable input is a runtime failure: exit 1 naming the file and the
# reason. A --topology file that is read but is not hwloc XML is bad data,
# exit 1 too, as --resume and --data with bad content are.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan --topology "$WORK/missing.xml"
expect_code 1
expect_stderr "^mptrain: error: --topology: .*missing.xml: No such file"

run_mptrain plan --topology "$MPTRAIN_TEST_DATA/affinity/broken.xml"
expect_code 1
expect_stderr "^mptrain: error: --topology: .*broken.xml is not a valid hwloc XML topology \(write one with 'lstopo --of xml FILE'\)$"
run_mptrain plan --topology /etc/passwd
expect_code 1
expect_stderr "^mptrain: error: --topology: /etc/passwd is not a valid hwloc XML topology"

MPTRAIN_FSROOT="$WORK/empty-root" run_mptrain plan
expect_code 1
expect_stderr '^mptrain: error: MPTRAIN_FSROOT=.*/empty-root: cannot open .*empty-root/sys/devices/system/cpu/online: No such file or directory; point MPTRAIN_FSROOT at a directory holding proc/ and sys/, or unset it$'
