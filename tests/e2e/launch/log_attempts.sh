# With --max-restarts, each attempt's logs are kept apart in DIR/attempt-A/,
# and DIR/rank-R.out and .err are links to the latest attempt's files. The
# failure message shows the failing attempt's stderr, even when redirected.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

# Rank 0 fails on attempt 0; attempt 1 succeeds.
run_mptrain run -n 2 --max-restarts 1 --log-dir "$WORK/logs" -- sh -c '
  echo "out $RANK attempt $MPTRAIN_RESTART_COUNT"; echo "err $RANK attempt $MPTRAIN_RESTART_COUNT" >&2
  [ "$MPTRAIN_RESTART_COUNT" = 0 ] && [ $RANK = 0 ] && exit 3
  [ "$MPTRAIN_RESTART_COUNT" = 0 ] && exec sleep 30
  exit 0'
expect_code 0
expect_stderr 'restarting the group \(1 of 1\)'
[[ $(cat "$WORK/logs/attempt-0/rank-0.out") == "out 0 attempt 0" ]] || fail "attempt-0/rank-0.out is wrong"
[[ $(cat "$WORK/logs/attempt-0/rank-0.err") == "err 0 attempt 0" ]] || fail "attempt-0/rank-0.err is wrong"
for rank in 0 1; do
  for stream in out err; do
    file="$WORK/logs/rank-$rank.$stream"
    [[ -L "$file" ]] || fail "rank-$rank.$stream is not a link"
    [[ $(readlink "$file") == "attempt-1/rank-$rank.$stream" ]] || fail "rank-$rank.$stream points at $(readlink "$file")"
    [[ $(cat "$file") == "$stream $rank attempt 1" ]] || fail "rank-$rank.$stream does not show attempt 1"
  done
done
[[ $(ls "$WORK/logs" | tr '\n' ' ') == "attempt-0 attempt-1 rank-0.err rank-0.out rank-1.err rank-1.out " ]] ||
  fail "unexpected files in the log directory: $(ls -a "$WORK/logs")"

# Every attempt fails: the message shows the last attempt's stderr only.
run_mptrain run -n 1 --max-restarts 1 --log-dir "$WORK/fail" -- sh -c 'echo "attempt $MPTRAIN_RESTART_COUNT failed" >&2; exit 4'
expect_code 4
expect_stderr '^  attempt 1 failed$'
! grep -q '^  attempt 0 failed$' "$WORK/err" || fail "the message shows the first attempt's stderr"
[[ $(cat "$WORK/fail/attempt-0/rank-0.err") == "attempt 0 failed" ]] || fail "attempt 0's stderr was not kept"

# Without --max-restarts the files are plain files directly in DIR, as before.
run_mptrain run -n 1 --log-dir "$WORK/flat" -- echo hi
expect_code 0
[[ -f "$WORK/flat/rank-0.out" && ! -L "$WORK/flat/rank-0.out" && ! -e "$WORK/flat/attempt-0" ]] ||
  fail "a run without restarts did not write plain files"
