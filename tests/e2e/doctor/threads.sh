# --threads adds the per-thread table to the text report and a threads key to
# the JSON one; without it there is neither.
# ctest: processors 2 (its burners keep two CPUs busy)
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"

run_mptrain doctor --threads --fail-on never -- "$BURN" 2 1
expect_code 0
grep -qE '^threads that ran \([0-9]+, busiest first\):' "$WORK/out" || { cat "$WORK/out" >&2; fail "no thread table"; }
grep -qE '^ +PID +TID +COMM +CPU s +WAIT s +SLICES' "$WORK/out" || { cat "$WORK/out" >&2; fail "no table header"; }
(( $(grep -cE '^ +[0-9]+ +[0-9]+  mptrain_burn ' "$WORK/out") >= 2 )) || { cat "$WORK/out" >&2; fail "the burner's threads are not listed"; }

run_mptrain doctor --threads --json --fail-on never -- "$BURN" 2 1
expect_code 0
expect_json '[.threads[] | select(.comm == "mptrain_burn" and .cpu_seconds > 0)] | length >= 2'
expect_json '[.threads[] | has("tid") and has("wait_seconds") and has("timeslices")] | all'

run_mptrain doctor --json --fail-on never -- "$BURN" 1 0.5
expect_code 0
expect_json 'has("threads") | not'
