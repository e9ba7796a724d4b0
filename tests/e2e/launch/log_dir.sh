# --log-dir writes one file per rank and stream instead of tagged lines; an
# unwritable directory is a clear error with exit 1.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

run_mptrain run -n 2 --log-dir "$WORK/logs" -- sh -c 'echo "out $RANK"; echo "err $RANK" >&2'
expect_code 0
for rank in 0 1; do
  [[ $(cat "$WORK/logs/rank-$rank.out") == "out $rank" ]] || fail "rank-$rank.out is wrong"
  [[ $(cat "$WORK/logs/rank-$rank.err") == "err $rank" ]] || fail "rank-$rank.err is wrong"
done
! grep -q '^\[' "$WORK/out" || fail "tagged lines printed despite --log-dir"

touch "$WORK/file"
run_mptrain run -n 2 --log-dir "$WORK/file/logs" -- true
expect_code 1
expect_stderr "^mptrain: error: cannot create the log directory $WORK/file/logs"
