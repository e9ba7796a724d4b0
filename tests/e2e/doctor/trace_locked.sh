# Two doctors (or a doctor and a training run) given the same --trace file:
# the second is refused (exit 1) before it samples or runs its command,
# naming the first one's pid; the first one still writes its trace.
# ctest: timeout 120
source "$(dirname "$0")/../lib.sh"
trace="$WORK/t.json"

"$MPTRAIN" doctor --json --fail-on never --interval 0.1 --trace "$trace" -- sleep 600 >"$WORK/first.out" 2>"$WORK/first.err" &
first=$!
trap 'kill -9 "$first" 2>/dev/null; rm -rf "$WORK"' EXIT  # never left sampling when a check fails
# The first doctor holds the lock once its lock file names it.
for _ in $(seq 300); do
  grep -qx "$first" "$WORK"/.mptrain-lock-* 2>/dev/null && break
  sleep 0.1
done
grep -qx "$first" "$WORK"/.mptrain-lock-* 2>/dev/null || { kill "$first"; fail "the first doctor took no lock"; }

run_mptrain doctor --trace "$trace" -- touch "$WORK/ran"
expect_code 1
expect_stderr "^mptrain: error: --trace $trace is being written by another mptrain run \(pid $first\); wait for it to end, or give another --trace path"
[[ ! -e "$WORK/ran" ]] || fail "the second doctor ran its command"

# A training run saving to the same path is refused too, before it trains
# (the lock is checked before its data is: this data directory is empty).
mkdir "$WORK/no-data"
run_mptrain run -n 1 -t 1 --data "$WORK/no-data" --model logreg --save-model "$trace"
expect_code 1
expect_stderr "^mptrain: error: --save-model $trace is being written by another mptrain run \(pid $first\)"

kill -TERM "$first"
wait "$first"
code=$?
[[ $code -eq 143 ]] || { cat "$WORK/first.err" >&2; fail "the first doctor exited $code after SIGTERM, not 143"; }
jq -e '.traceEvents | type == "array"' "$trace" >/dev/null || fail "the first doctor wrote no trace"
compgen -G "$WORK/.mptrain-*" >/dev/null && fail "a lock or temporary file was left: $(ls -A "$WORK")"
exit 0
