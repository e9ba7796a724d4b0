# Exit codes: --fail-on levels, the command's own code first, usage errors.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"

run_mptrain doctor --fail-on never --json -- taskset -c "$CPU" "$BURN" 6 1
expect_code 0
expect_json '.verdict == "oversubscribed"'

# Too little evidence is inconclusive, which --fail-on warning does not take in.
run_mptrain doctor --fail-on warning --json -- sleep 0.3
expect_code 0
expect_json '.verdict == "inconclusive"'

run_mptrain doctor -- sh -c 'exit 7'
expect_code 7

run_mptrain doctor --json -- sh -c 'kill -TERM $$'
expect_code 143

# A failing command's own code wins over 3.
run_mptrain doctor --json -- sh -c "taskset -c $CPU $BURN 6 1; exit 5"
expect_code 5

run_mptrain doctor --fail-on sometimes
expect_code 2
expect_stderr '^mptrain: error:'

run_mptrain doctor --pid 1 -- true
expect_code 2
expect_stderr '^mptrain: error:.*--pid'

run_mptrain doctor --interval 5parsecs
expect_code 2
expect_stderr '^mptrain: error:.*--interval'

run_mptrain doctor -- /nonexistent/program
expect_code 1
expect_stderr '^mptrain: error:'
