# A --log-dir whose log file is not a regular file (a FIFO, which would
# block open(2) forever; a character device, which would swallow the
# output) is refused at once with exit 1 before any worker runs, and left
# as it is; a user's own file named like the directory's lock file is
# neither truncated nor removed.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"

logs="$WORK/logs"
mkdir -p "$logs"
mkfifo "$logs/rank-0.out"
timeout 20 "$MPTRAIN" run -n 1 --log-dir "$logs" -- touch "$WORK/ran" >"$WORK/out" 2>"$WORK/err"
code=$?
[[ $code != 124 ]] || fail "a FIFO as a log file hung the run"
expect_code 1
expect_stderr "^mptrain: error: .*rank-0.out is a FIFO, not a regular file"
[[ -p "$logs/rank-0.out" ]] || fail "the FIFO was replaced"
[[ ! -e "$WORK/ran" ]] || fail "a worker ran"

rm "$logs/rank-0.out"
mknod "$logs/rank-0.err" c 1 3 2>/dev/null || ln -s /dev/null "$logs/rank-0.err.device"
if [[ -c "$logs/rank-0.err" ]]; then
  run_mptrain run -n 1 --log-dir "$logs" -- sh -c 'echo lost >&2'
  expect_code 1
  expect_stderr "rank-0.err is a character device, not a regular file"
  [[ -c "$logs/rank-0.err" ]] || fail "the device node was replaced"
  rm "$logs/rank-0.err"
fi

# torchrun's layout goes through the same check.
mkdir -p "$WORK/tr"
run_mptrain torchrun --nproc-per-node 1 --log-dir "$WORK/tr" --rdzv-id fixed -r 3 --no-python true
expect_code 0
run_dir=$(find "$WORK/tr" -mindepth 1 -maxdepth 1 -type d | head -1)
[[ -n $run_dir ]] || fail "torchrun made no run folder"

# A user's file named .mptrain.lock in the directory: refused, kept as it was.
rm -rf "$logs" && mkdir -p "$logs"
echo "my notes" >"$logs/.mptrain.lock"
run_mptrain run -n 1 --log-dir "$logs" -- touch "$WORK/ran"
expect_code 1
expect_stderr "is a file of yours, not an mptrain lock file"
[[ $(cat "$logs/.mptrain.lock") == "my notes" ]] || fail "the user's .mptrain.lock was changed"
[[ ! -e "$WORK/ran" ]] || fail "a worker ran"
exit 0
