# Load from another mptrain run is named as such: a job that shares its
# CPUs with a live run gets an outside_load finding whose other_runs names
# that run (pid, CPUs, command), and `mptrain doctor` watching the machine
# lists the live runs (text and JSON).
# ctest: processors 2
source "$(dirname "$0")/../lib.sh"
n=$("$MPTRAIN" topo --json | jq -r .usable_cpus)
burn="for i in \$(seq $n); do (while :; do :; done) & done; wait"
# A run busy on every usable CPU, ended with the script.
"$MPTRAIN" run -n 1 -t "$n" -- sh -c "$burn" >"$WORK/holder.out" 2>"$WORK/holder.err" &
holder=$!
trap 'kill $holder 2>/dev/null; wait $holder 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [[ -n $(ls -A "$MPTRAIN_RUNS_DIR" 2>/dev/null) ]] && break; sleep 0.05; done

run_mptrain doctor --duration 0.5 --fail-on never --json
expect_code 0
expect_json ".mptrain_runs | length == 1 and .[0].pid == $holder and .[0].state == \"running\" and (.[0].command | startswith(\"sh -c\"))"
run_mptrain doctor --duration 0.5 --fail-on never
expect_code 0
grep -q "^mptrain runs on this machine: 1" "$WORK/out" || { cat "$WORK/out" >&2; fail "the machine report does not list the run"; }
grep -Eq "^  pid $holder \(uid [0-9]+, CPUs [0-9,-]+, 1x$n\): sh -c" "$WORK/out" || { cat "$WORK/out" >&2; fail "the run's line is wrong"; }

# A job on the same CPUs: its outside load is that run, by name.
run_mptrain doctor --duration 2 --interval 250ms --fail-on never --json -- sh -c "timeout 2 sh -c '$burn'"
expect_json ".findings | map(select(.kind == \"outside_load\")) | length == 1"
expect_json ".findings[] | select(.kind == \"outside_load\") | .other_runs | length == 1 and (.[0] | startswith(\"pid $holder \"))"
expect_json ".findings[] | select(.kind == \"outside_load\") | .fix | contains(\"other mptrain runs\")"
exit 0
