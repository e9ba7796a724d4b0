# `mptrain doctor 1234` (a pid given as the command, no program of that
# name in PATH) says to use --pid, not to check PATH; a program whose name is
# all digits, when there is one in PATH, still runs.
source "$(dirname "$0")/../lib.sh"

advice="\(a command to run goes after --: mptrain doctor -- python train.py\)$"
run_mptrain doctor 1234
expect_usage_error "'1234' looks like a pid, and no program of that name is in PATH: to watch that process, give --pid 1234 $advice"
! grep -q 'check the name' "$WORK/err" || fail "PATH advice for a pid: $(cat "$WORK/err")"
run_mptrain doctor --duration 0.1 -- 1 2
expect_usage_error "'1' looks like a pid, .* to watch those processes, give --pid 1 --pid 2 "
run_mptrain doctor --json 99999999
expect_usage_error "give --pid 99999999 "
[[ ! -s $WORK/out ]] || fail "a refused doctor printed a report"
# Words that are not all digits: the spawn's own message.
run_mptrain doctor 12ab
expect_code 1
expect_stderr "cannot run '12ab': not found in PATH; check the name or give its path"
# A program named 4242 in PATH runs.
mkdir "$WORK/bin"
printf '#!/bin/sh\nexit 0\n' >"$WORK/bin/4242"
chmod +x "$WORK/bin/4242"
PATH="$WORK/bin:$PATH" run_mptrain doctor --fail-on never -- 4242
expect_code 0
echo PASS
