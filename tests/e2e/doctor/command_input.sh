# `doctor -- CMD` passes its standard input on to the command, as time(1)
# and strace(1) do (it gave the command /dev/null without a word); `run`
# still gives its workers /dev/null, since several workers cannot share one
# input.
source "$(dirname "$0")/../lib.sh"
printf 'line one\nline two\n' | "$MPTRAIN" doctor --fail-on never -- cat >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 0
[[ $(grep -c '^line \(one\|two\)$' "$WORK/out") == 2 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "the command did not read doctor's input"; }
printf 'line one\n' | "$MPTRAIN" doctor --json --fail-on never -- cat >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 0
grep -q 'line one$' "$WORK/err" || { cat "$WORK/err" >&2; fail "--json: the command did not read doctor's input"; }
printf 'line one\n' | "$MPTRAIN" run -n 1 -- cat >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 0
! grep -q 'line one' "$WORK/out" || fail "run passed its input to a worker"
echo PASS
