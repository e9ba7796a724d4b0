# --tee sends the streams it names to the rank's log file and to the console
# (tagged); a stream named by --redirects and --tee is teed.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

worker='echo "out $RANK"; echo "err $RANK" >&2'

# 2: stderr to files and the console; stdout, not named, to the console only (as torchrun does).
run_mptrain run -n 2 --log-dir "$WORK/logs" --tee 2 -- sh -c "$worker"
expect_code 0
for rank in 0 1; do
  [[ $(cat "$WORK/logs/rank-$rank.err") == "err $rank" ]] || fail "rank-$rank.err is wrong"
  [[ ! -e "$WORK/logs/rank-$rank.out" ]] || fail "rank-$rank.out was written though stdout is not redirected"
  expect_stderr "^\[$rank\] err $rank$"
  grep -qx "\[$rank\] out $rank" "$WORK/out" || fail "rank $rank's stdout is not on the console"
done

# Tee wins: stdout is named by both, so it is in its file and on the console; stderr only in its file.
rm -rf "$WORK/logs"
run_mptrain run -n 2 --log-dir "$WORK/logs" --redirects 3 --tee 1 -- sh -c "$worker"
expect_code 0
for rank in 0 1; do
  [[ $(cat "$WORK/logs/rank-$rank.out") == "out $rank" ]] || fail "rank-$rank.out is wrong"
  [[ $(cat "$WORK/logs/rank-$rank.err") == "err $rank" ]] || fail "rank-$rank.err is wrong"
  grep -qx "\[$rank\] out $rank" "$WORK/out" || fail "rank $rank's teed stdout is not on the console"
done
! grep -q '^\[' "$WORK/err" || fail "redirected stderr reached the console"

# With --json the teed stdout lines go to stderr, so stdout holds only the report.
rm -rf "$WORK/logs"
run_mptrain run -n 2 --log-dir "$WORK/logs" --tee all --json -- sh -c "$worker"
expect_code 0
expect_json '.exit_code == 0'
expect_stderr '^\[1\] out 1$'
[[ $(cat "$WORK/logs/rank-1.out") == "out 1" ]] || fail "rank-1.out is wrong with --json"
