# --progress counts matching lines per second over each trial's window. A
# program no launch speeds up (its rate is set by a sleep), tried as three
# launches two of which are the same, gives no measurable difference, and
# tune names the simplest of the tied: the program as it is run.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_ticker 0.05
budget=$(budget_for 9 6)

run_mptrain tune --json --only-tries --try "-n 1" --warmup 0.3 --trial 1 --budget "$budget" --progress '^tick$' -- "$WORK/ticker"
expect_code 0
expect_json '.metric.kind == "lines/s"'
expect_json '.candidates | length == 3'
expect_json '[.candidates[] | .trials >= 2 and .throughput.median > 5 and .throughput.median < 25] | all'
expect_json '.winner == null and .simplest_tied.baseline == true'
expect_json '.noise != null'
expect_nothing_left "$WORK/ticker"

# The same decision as the text gives it (its lines: tests/tune/report_test.cpp), with the program's own command.
expect_json '.decision | test("^nothing beat the baseline")'
[[ $(json .simplest_tied.command) == "$WORK/ticker" ]] || fail "the simplest of the tied is not the program's own command"

# A program that runs a fixed time (here a sleep) timed as whole runs: every launch takes the same
# time, so no winner, and the report says why and what to use instead.
run_mptrain tune --json --only-tries --budget "$(budget_for 5 6)" -- sleep 0.8
expect_code 0
expect_json '.winner == null and (.decision | test("a program that runs a fixed time")) and (.decision | test("--metric"))'
