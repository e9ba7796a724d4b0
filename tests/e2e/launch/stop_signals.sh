# The other catchable signals that would end mptrain (SIGALRM, SIGVTALRM,
# SIGPROF, SIGXCPU, SIGXFSZ, SIGPWR, SIGIO) stop the run as SIGTERM does:
# forwarded to every worker, and nothing is left running.
# ctest: timeout 120
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
ulimit -c 0  # SIGXCPU and SIGXFSZ dump core by default

for signal in ALRM VTALRM PROF XCPU XFSZ PWR IO; do
  rm -f "$WORK"/started.* "$WORK"/got.*
  worker="trap 'echo $signal > $WORK/got.\$RANK; exit 0' $signal; echo \$\$ > $WORK/started.\$RANK; while :; do sleep 0.1; done"
  start_mptrain run -n 1 --grace 5 -- bash -c "$worker"
  wait_for 20 files_exist "$WORK/started.0" || fail "SIG$signal: worker did not start"
  signal_and_wait "$signal"
  expect_code 0
  [[ $(cat "$WORK/got.0" 2>/dev/null) == "$signal" ]] || fail "the worker did not get SIG$signal"
done

# A worker that does not handle SIGALRM dies of it: exit 128 + 14.
signal_sleeping_run 1 ALRM
expect_code 142
expect_stderr 'killed by SIGALRM after mptrain forwarded SIGALRM'
