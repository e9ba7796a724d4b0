# '--' with nothing (or an empty word) after it: the advice fits the
# command. plan and topo run nothing, so they say to remove '--'; the
# doctor's example names the doctor, not run.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan --
expect_usage_error "plan runs no command: remove '--' and what follows it \(see 'mptrain plan --help'\)$"
run_mptrain topo -- foo bar
expect_usage_error "topo runs no command: remove '--' and what follows it"
run_mptrain plan -n 1 -- ''
expect_usage_error "plan runs no command"
! grep -q 'give a program' "$WORK/err" || fail "plan was told to give a program: $(cat "$WORK/err")"
run_mptrain doctor --
expect_usage_error "nothing to run after '--'; give the command after it \(mptrain doctor -- python train.py\)$"
run_mptrain doctor --duration 0.1 -- ''
expect_usage_error "the command after '--' is an empty word; give a program to run \(mptrain doctor -- python train.py\)$"
run_mptrain run -n 1 --
expect_usage_error "nothing to run after '--'; give the command after it \(mptrain run -- python train.py\)$"
echo PASS
