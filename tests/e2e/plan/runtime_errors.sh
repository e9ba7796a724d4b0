# Unreadable input is a runtime failure: exit 1 naming the file and the reason.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan --topology "$WORK/missing.xml"
expect_code 1
expect_stderr "^mptrain: error: --topology: .*missing.xml: No such file"

MPTRAIN_FSROOT="$WORK/empty-root" run_mptrain plan
expect_code 1
expect_stderr '^mptrain: error: .*empty-root/sys/devices/system/cpu/online: No such file'
