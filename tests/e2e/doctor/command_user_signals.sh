# `doctor -- CMD` forwards SIGUSR1 to CMD and goes on watching; a stop
# signal such as SIGALRM is forwarded too and stops the watch with a report.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
wait_file() { for _ in $(seq 400); do [[ -s $1 ]] && return 0; sleep 0.05; done; return 1; }

cmd="trap 'echo USR1 >> $WORK/got' USR1; trap 'echo ALRM >> $WORK/got; exit 0' ALRM; echo \$\$ > $WORK/started; while :; do sleep 0.1; done"
"$MPTRAIN" doctor --fail-on never --json -- bash -c "$cmd" >"$WORK/out" 2>"$WORK/err" &
doctor=$!
wait_file "$WORK/started" || fail "CMD did not start"
kill -USR1 "$doctor"
wait_file "$WORK/got" || fail "SIGUSR1 did not reach CMD"
kill -0 "$doctor" 2>/dev/null || fail "SIGUSR1 stopped the doctor"
kill -ALRM "$doctor"
wait "$doctor"
code=$?
expect_code 142
[[ $(cat "$WORK/got") == $'USR1\nALRM' ]] || fail "CMD got $(cat "$WORK/got"), not SIGUSR1 then SIGALRM"
expect_json '.interrupted_by == "SIGALRM"'
