# Two runs with one --log-dir: the second is refused before it starts any
# worker (exit 1, naming the first run's pid), and the first run's files are
# left alone; once the first ends, the directory is free again.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

logs="$WORK/logs"
# The first run writes a line, says it started, and waits to be released.
# The first run records what it holds apart (this script is about the log
# directory's lock, not about planning around another run's CPUs).
MPTRAIN_RUNS_DIR=$WORK/first-runs "$MPTRAIN" run -n 1 --log-dir "$logs" -- \
  sh -c 'echo first; touch "$0/started"; while [ ! -e "$0/release" ]; do sleep 0.05; done' "$WORK" \
  >"$WORK/first.out" 2>"$WORK/first.err" &
first=$!
trap 'kill "$first" 2>/dev/null; wait "$first"; rm -rf "$WORK"' EXIT  # the first run waits for a file in $WORK
wait_for 30 test -e "$WORK/started" || fail "the first run did not start"

# The second run is refused naming the first, running nothing.
in_use="^--log-dir .* is in use by another mptrain run \(pid $first\); wait for that run to end"
refused 1 "$in_use" run -n 1 --log-dir "$logs" -- touch "$WORK/ran"
refused 1 "$in_use" run -n 2 --log-dir "$logs" --max-restarts 1 -- touch "$WORK/ran"
refused 1 "$in_use" run -n 1 --log-dir "$logs" --tee 0 -- touch "$WORK/ran"
ln -s "$logs" "$WORK/alias"
refused 1 "$in_use" run -n 1 --log-dir "$WORK/alias" -- touch "$WORK/ran"  # another name for the same directory
[[ $(cat "$logs/rank-0.out") == first ]] || fail "the first run's log was touched"
[[ $(cat "$logs/.mptrain.lock") == "$first" ]] || fail "the lock file does not hold the first run's pid"

# A dry run writes nothing, so it is not refused.
run_mptrain run -n 1 --log-dir "$logs" --dry-run -- true
expect_code 0

touch "$WORK/release"
wait "$first"
code=$?
expect_code 0
run_mptrain run -n 1 --log-dir "$logs" -- echo second
expect_code 0
[[ $(cat "$logs/rank-0.out") == second ]] || fail "the directory was not free after the first run"
