# A real-valued option beyond the largest number a double holds ("1e400")
# says it is too large and gives the bounds (it used to say "is not a
# number"); one below the smallest ("1e-400") reads as 0, as strtod reads it.
source "$(dirname "$0")/../lib.sh"

large='is too large \(beyond the largest number, about 1\.8e308\); give one'
run_mptrain doctor --duration 1e400
expect_usage_error "--duration: 1e400 $large above 0 and at most 86400 \(see 'mptrain doctor --help'\)$"
run_mptrain doctor --interval 1e400
expect_usage_error "--interval: 1e400 $large from 50ms to 60s"
run_mptrain doctor --every 1e400ms
expect_usage_error "--every: 1e400ms $large from"
run_mptrain run -n 1 --grace 1e400 -- true
expect_usage_error "--grace: 1e400 $large from 0 to 604800 \(a week\)"
run_mptrain doctor --max-demand-ratio 1e400
expect_usage_error "--max-demand-ratio: 1e400 $large at least 0"
run_mptrain run --lr 1e400
expect_usage_error "--lr: 1e400 $large from 0 to"
run_mptrain doctor --duration -1e400
expect_usage_error "--duration: -1e400 is too far below zero .*; give one above 0 and at most 86400"
! grep -q 'is not a number' "$WORK/err" || fail "an overflow was called not a number"
# Whole numbers: the bound, as for 99999999999.
run_mptrain plan -n 1e400
expect_usage_error "--num-processes: 1e400 is too large: the most accepted is 1048576"
run_mptrain plan -n -1e400
expect_usage_error "--num-processes: -1e400 is not from 1 to 1048576"
# Underflow: 0, which the bounds then judge.
run_mptrain doctor --warn-demand-ratio 1e-400 --duration 0.1 --fail-on never
expect_code 0
run_mptrain doctor --duration 1e-400
expect_usage_error "--duration: 1e-400 is not above 0 and at most 86400"
# Not numbers at all are still called so.
run_mptrain doctor --duration 1e400x
expect_usage_error "--duration: 1e400x is not a number"
echo PASS
