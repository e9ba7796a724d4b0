# --timestamp-output starts each console line with the local time to the
# millisecond, before the rank tag (none with --no-tag-output); log files
# keep the worker's bytes unchanged.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

stamp='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}'
run_mptrain run -n 2 --timestamp-output -- sh -c 'echo "out $RANK"; printf "err $RANK" >&2'
expect_code 0
for rank in 0 1; do
  grep -Eqx "$stamp \[$rank\] out $rank" "$WORK/out" || { cat "$WORK/out" >&2; fail "rank $rank's stdout line is not stamped"; }
  expect_stderr "^$stamp \[$rank\] err $rank$"
done
[[ $(wc -l <"$WORK/out") == 2 ]] || fail "unexpected lines on stdout"
today=$(date +%Y-%m-%d)
yesterday=$(date -d yesterday +%Y-%m-%d)
grep -Eq "^($today|$yesterday)T" "$WORK/out" || fail "the timestamp is not today's local date"

run_mptrain run -n 1 --timestamp-output --no-tag-output -- echo hi
expect_code 0
grep -Eqx "$stamp hi" "$WORK/out" || fail "an untagged line is not stamped: $(cat "$WORK/out")"

# Teed streams are stamped on the console, not in the file.
run_mptrain run -n 1 --timestamp-output --log-dir "$WORK/logs" --tee 1 -- echo hi
expect_code 0
grep -Eqx "$stamp \[0\] hi" "$WORK/out" || fail "a teed line is not stamped on the console"
[[ $(cat "$WORK/logs/rank-0.out") == "hi" ]] || fail "the log file is not the worker's bytes"
