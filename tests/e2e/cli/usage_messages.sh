# Usage errors say what was wrong in words a user recognises: an unknown
# command is named and the commands listed; a missing command says so; a
# count that is not a whole number is called that, not "out of range".
source "$(dirname "$0")/../lib.sh"

commands='the commands are topo, plan, run, doctor, torchrun and tune'

run_mptrain frobnicate
expect_code 2
expect_stderr "^mptrain: error: unknown command 'frobnicate'; $commands"

run_mptrain frobnicate --json -n 2
expect_code 2
expect_stderr "^mptrain: error: unknown command 'frobnicate'; $commands"

run_mptrain
expect_code 2
expect_stderr "^mptrain: error: no command given; $commands"

run_mptrain --no-such-option
expect_code 2
expect_stderr "^mptrain: error: unknown option '--no-such-option' before any command; $commands"

# A known command with a bad option is about the option, not the command.
run_mptrain plan --no-such-option
expect_code 2
expect_stderr "^mptrain: error:.*no-such-option"
! grep -q 'unknown command' "$WORK/err" || fail "plan was called an unknown command"

run_mptrain plan -n 1.5
expect_code 2
expect_stderr '^mptrain: error: .*1\.5 is not a whole number'
! grep -q 'not in range' "$WORK/err" || fail "-n 1.5 was called out of range"

run_mptrain plan -n 1e3
expect_code 2
expect_stderr '^mptrain: error: .*1e3 is not written as a whole number; write 1000'

run_mptrain topo --
expect_code 2
expect_stderr "^mptrain: error: topo runs no command: remove '--' and what follows it"
