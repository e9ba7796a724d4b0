# What a terminal shows of a healthy run: the monitor's part is two lines,
# and no line of the report is wider than 80 columns; --verbose gives the
# whole report; --quiet and --verbose together are refused.
source "$(dirname "$0")/../lib.sh"

# A job that sleeps through a watch of four intervals or more is healthy: nothing waited.
run_mptrain run -n 1 -- sleep 1.5
expect_code 0
grep -q '^monitor verdict: healthy (watched [0-9.]* s; --verbose or --json for the figures)$' "$WORK/err" ||
  { cat "$WORK/err" >&2; fail "no short healthy verdict line"; }
[[ $(sed -n '/^monitor verdict/,$p' "$WORK/err" | wc -l) == 2 ]] ||
  { cat "$WORK/err" >&2; fail "a healthy run's monitor report is not two lines"; }
grep -Eq '^    [0-9.]+ working threads on [0-9]+ usable CPUs, [0-9.]+ queued, throughput lost [0-9]+%$' "$WORK/err" ||
  { cat "$WORK/err" >&2; fail "the second line does not give the threads, CPUs, queued threads and loss"; }
wide=$(LC_ALL=C.UTF-8 awk 'length($0) > 80' "$WORK/err")
[[ -z $wide ]] || fail "lines wider than 80 columns: $wide"

run_mptrain run -n 1 --verbose -- sleep 1.5
expect_code 0
expect_stderr 'runnable threads \(avg\)'
expect_stderr 'context switches:'

run_mptrain run -n 1 --quiet --verbose -- true
expect_code 2
expect_stderr "mptrain: error: --quiet and --verbose cannot be given together"
exit 0
