# A failed read of /proc or /sys under MPTRAIN_FSROOT names the variable and
# says what to do, in every command alike (topo, plan and run used to show
# only the path, the doctor alone named the variable); without the variable
# the message is the bare failure.
source "$(dirname "$0")/../lib.sh"

advice='; point MPTRAIN_FSROOT at a directory holding proc/ and sys/, or unset it$'
for command in topo plan "run -n 1 --dry-run -- true" "run -n 1 --epochs 0"; do
  # shellcheck disable=SC2086
  MPTRAIN_FSROOT=/nonexist run_mptrain $command
  expect_code 1
  expect_stderr "^mptrain: error: MPTRAIN_FSROOT=/nonexist: cannot open /nonexist/sys/devices/system/cpu/online: No such file or directory$advice"
done
MPTRAIN_FSROOT=/nonexist run_mptrain doctor --duration 0.1
expect_code 1
expect_stderr "^mptrain: error: MPTRAIN_FSROOT=/nonexist: cannot open /nonexist/proc/stat: No such file or directory$advice"
# A root that exists but lacks sys/: the same advice.
mkdir -p "$WORK/root/proc"
MPTRAIN_FSROOT="$WORK/root" run_mptrain plan --json
expect_code 1
expect_stderr "^mptrain: error: MPTRAIN_FSROOT=$WORK/root: cannot open .*$advice"
[[ ! -s $WORK/out ]] || fail "a failed plan --json printed on stdout"
# An empty MPTRAIN_FSROOT means the real root: nothing to name.
MPTRAIN_FSROOT= run_mptrain plan
expect_code 0
echo PASS
