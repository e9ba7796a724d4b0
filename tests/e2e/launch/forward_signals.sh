# SIGTERM, SIGINT and SIGHUP sent to mptrain reach every worker.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

for signal in TERM INT HUP; do
  rm -f "$WORK"/started.* "$WORK"/got.*
  worker="trap 'echo $signal > $WORK/got.\$RANK; exit 0' $signal; echo \$\$ > $WORK/started.\$RANK; while :; do sleep 0.1; done"
  # (A background job of a script starts with SIGINT ignored; it is caught anyway.)
  start_mptrain run -n 2 --grace 5 -- sh -c "$worker"
  wait_for 20 files_exist "$WORK/started.0" "$WORK/started.1" || fail "workers did not start"
  signal_and_wait "$signal"
  expect_code 0
  for rank in 0 1; do
    [[ $(cat "$WORK/got.$rank" 2>/dev/null) == "$signal" ]] || fail "rank $rank did not get SIG$signal"
  done
done

# Workers that do not handle it die of it, and mptrain exits 128 + SIGTERM.
signal_sleeping_run 2 TERM
expect_code 143
expect_stderr 'killed by SIGTERM after mptrain forwarded SIGTERM'

# SIGHUP ignored when mptrain starts (nohup) stays ignored, by it and by its workers.
rm -f "$WORK"/started.* "$WORK"/got.*
worker="trap 'echo HUP > $WORK/got.\$RANK' HUP; echo \$\$ > $WORK/started.\$RANK; while :; do sleep 0.1; done"
start_command env --ignore-signal=HUP "$MPTRAIN" run -n 2 --grace 5 -- sh -c "$worker"
wait_for 20 files_exist "$WORK/started.0" "$WORK/started.1" || fail "workers did not start"
kill -HUP "$launcher"
sleep 0.5
alive "$launcher" || fail "SIGHUP stopped mptrain although it was ignored"
[[ ! -e "$WORK/got.0" && ! -e "$WORK/got.1" ]] || fail "an ignored SIGHUP reached a worker"
signal_and_wait TERM
expect_code 143
