# `doctor --json -- CMD` relays the command's output, tagged, to stderr (the
# report owns stdout): when that stream fails (a full disk, /dev/full) the
# output is lost, so the doctor says what was lost and exits 1, as
# `run -- CMD` does; the command's own failure still wins; and a stream that
# takes the output loses nothing.
source "$(dirname "$0")/../lib.sh"

"$MPTRAIN" doctor --json --interval 100ms -- sh -c 'yes relayed | head -c 300000' >"$WORK/out" 2>/dev/full
code=$?
[[ $code == 1 ]] || fail "a lost stderr relay exited $code, not 1"
jq -e '.verdict' "$WORK/out" >/dev/null || fail "the report did not reach stdout"

# A reader that closed the pipe, with SIGPIPE ignored (as the issue's user had it): the same, exit 1.
(trap '' PIPE; exec "$MPTRAIN" doctor --json --interval 100ms -- sh -c 'yes relayed | head -c 300000') \
  >"$WORK/out" 2> >(head -c 0 >/dev/null)
code=$?
[[ $code == 1 ]] || fail "a closed stderr pipe with SIGPIPE ignored exited $code, not 1"

# The command's own failure wins over the loss.
"$MPTRAIN" doctor --json --interval 100ms -- sh -c 'yes relayed | head -c 300000; exit 4' >"$WORK/out" 2>/dev/full
code=$?
[[ $code == 4 ]] || fail "the command's exit code 4 became $code"

# Nothing lost: exit 0, the lines whole on stderr.
run_mptrain doctor --json --interval 100ms -- sh -c 'echo one; echo two >&2'
expect_code 0
grep -qx '\[0\] one' "$WORK/err" && grep -qx '\[0\] two' "$WORK/err" || { cat "$WORK/err" >&2; fail "relayed lines"; }
! grep -q "output is lost" "$WORK/err" || fail "a loss reported when nothing was lost"

echo PASS
