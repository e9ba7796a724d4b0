# SIGINT or SIGTERM during sampling stops it and still prints the report of
# what was seen (text, or one complete JSON document), then exits 128+signal:
# for the whole machine, for --pid, and for -- CMD, where the signal is
# forwarded to CMD and CMD's own failing code wins.
# ctest: timeout 120
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../launch/common.bash"
# Whatever this script started in the background goes when it ends.
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT

# catches PID SIGNAL: PID has a handler installed for signal number SIGNAL.
catches() {
  local mask
  mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null)
  [[ -n "$mask" ]] && (((16#$mask >> ($2 - 1)) & 1))
}
# child_named PID NAME: the pid of PID's child running NAME (fails when none).
child_named() { pgrep -P "$1" -x "$2"; }
# start_doctor ARGS...: starts `mptrain doctor ARGS` in the background ($pid;
# output in $WORK/out and $WORK/err) and waits until it catches SIGINT and SIGTERM.
start_doctor() {
  "$MPTRAIN" doctor "$@" >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  wait_for 30 eval 'catches $pid 2 && catches $pid 15' || { cat "$WORK/err" >&2; fail "doctor $* never caught SIGINT/SIGTERM"; }
}
# stop_doctor SIGNAL: sends SIGNAL to the doctor and waits for it; its exit code in $code.
stop_doctor() {
  kill -s "$1" "$pid"
  wait "$pid"
  code=$?
}
# expect_one_json_document: stdout is exactly one JSON document with a verdict.
expect_one_json_document() {
  [[ $(jq -s 'length' "$WORK/out") == 1 ]] || { cat "$WORK/out" >&2; fail "not exactly one JSON document"; }
  expect_json '.verdict | IN("healthy", "inconclusive", "warning", "oversubscribed")'
}
# expect_text_report: stdout holds the text report.
expect_text_report() {
  grep -q '^verdict: ' "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "no text report on stdout"; }
}

# The whole machine: Ctrl-C (SIGINT) prints the text report, then 130.
start_doctor --duration 600 --interval 0.1
stop_doctor INT
expect_code 130
expect_text_report
expect_stderr 'stopped by SIGINT; reporting what was sampled'

# SIGTERM with --json: one complete document, then 143.
start_doctor --duration 600 --interval 0.1 --json
stop_doctor TERM
expect_code 143
expect_one_json_document
expect_json '.interrupted_by == "SIGTERM"'

# --pid: the watched process is not ours, so it is left alone.
sleep 600 >/dev/null 2>&1 &
sleeper=$!
start_doctor --pid "$sleeper" --duration 600 --interval 0.1 --json
stop_doctor INT
expect_code 130
expect_one_json_document
alive "$sleeper" || fail "the doctor signalled the --pid process"
kill "$sleeper"

# -- CMD: the signal is forwarded; CMD killed by it gives 128+signal.
start_doctor --json -- sleep 600
wait_for 30 child_named "$pid" sleep >/dev/null || fail "sleep never started"
stop_doctor TERM
expect_code 143
expect_one_json_document

# -- CMD that handles the signal and exits 0: the run was still interrupted.
start_doctor --json -- sh -c 'trap "exit 0" INT; while :; do sleep 0.1; done'
wait_for 30 eval 'catches "$(child_named $pid sh)" 2' || fail "sh never trapped SIGINT"
stop_doctor INT
expect_code 130
expect_one_json_document

# -- CMD that handles the signal and fails: its own code wins.
start_doctor -- sh -c 'trap "exit 4" TERM; while :; do sleep 0.1; done'
wait_for 30 eval 'catches "$(child_named $pid sh)" 15' || fail "sh never trapped SIGTERM"
stop_doctor TERM
expect_code 4
expect_text_report
