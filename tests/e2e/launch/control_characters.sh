# A failing worker's last stderr lines are quoted in mptrain's error message
# with their control characters shown as \xHH: a worker cannot clear the
# user's screen, retitle the terminal or forge lines through mptrain's own
# messages. Its output itself is passed on unchanged.
source "$(dirname "$0")/../lib.sh"

run_mptrain run -n 1 -- sh -c 'printf "boom\033[2J\033]0;owned\007\rmptrain: all fine\n" >&2; exit 4'
expect_code 4
grep -q 'last lines of rank 0' "$WORK/err" || fail "no stderr tail in the message: $(cat "$WORK/err")"
grep -qF '  boom\x1b[2J\x1b]0;owned\x07\x0dmptrain: all fine' "$WORK/err" ||
  fail "the stderr tail was not shown with \\xHH escapes: $(cat -v "$WORK/err")"
# The error message itself holds no raw control character (the worker's tagged line, passed on as it is, may).
grep -v '^\[0\]' "$WORK/err" | LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' &&
  fail "a raw control character reached mptrain's own message: $(cat -v "$WORK/err")"
echo PASS
