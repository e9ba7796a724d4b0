# --redirects sends the streams it names to the rank's log file only; the
# others stay on the console, tagged. Per rank, "0:3,1:0" logs both of rank
# 0's streams and none of rank 1's; words mean the same as digits.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

# 1: stdout to files, stderr on the console.
run_logged --redirects 1
for rank in 0 1; do
  expect_logged "$rank" out
  expect_not_logged "$rank" err
  expect_stderr "^\[$rank\] err $rank$"
done
! grep -q 'out' "$WORK/out" || fail "redirected stdout reached the console"

# Per rank: rank 0 to files only, rank 1 (not redirected) to the console only.
run_logged --redirects 0:3,1:0
expect_logged 0 out err
expect_not_logged 1 out err
[[ $(cat "$WORK/out") == "[1] out 1" ]] || fail "stdout should hold rank 1's line only: $(cat "$WORK/out")"
expect_stderr '^\[1\] err 1$'
! grep -q '\[0\]' "$WORK/err" || fail "rank 0's redirected stderr reached the console"

# The words: err is 2.
run_logged --redirects err
[[ -e "$WORK/logs/rank-1.err" && ! -e "$WORK/logs/rank-1.out" ]] || fail "--redirects err logged the wrong streams"
grep -qx '\[1\] out 1' "$WORK/out" || fail "stdout is not on the console with --redirects err"

# A failing worker's stderr that went only to its file still ends the error message.
run_mptrain run -n 2 --log-dir "$WORK/logs" --redirects 3 -- sh -c '[ $RANK = 1 ] && { echo "shard 1 is corrupt" >&2; exit 7; }; exit 0'
expect_code 7
expect_stderr '^mptrain: error: rank 1 \(pid [0-9]+\) exited with code 7'
expect_stderr '^  shard 1 is corrupt$'
