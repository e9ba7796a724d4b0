# SIGUSR1 and SIGUSR2 sent to mptrain reach every worker and the run goes
# on (Slurm's --signal sends SIGUSR1 before a job's time runs out); a worker
# that does not handle one dies of it, and mptrain names it.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

worker="trap 'echo USR1 >> $WORK/got.\$RANK' USR1; trap 'echo USR2 >> $WORK/got.\$RANK; exit 0' USR2; echo \$\$ > $WORK/started.\$RANK; while :; do sleep 0.1; done"
start_mptrain run -n 2 --grace 5 -- bash -c "$worker"
wait_for 20 files_exist "$WORK/started.0" "$WORK/started.1" || fail "workers did not start"
kill -USR1 "$launcher"
wait_for 20 files_exist "$WORK/got.0" "$WORK/got.1" || fail "SIGUSR1 did not reach both workers"
alive "$launcher" || fail "SIGUSR1 stopped mptrain"
signal_and_wait USR2
expect_code 0
for rank in 0 1; do
  [[ $(cat "$WORK/got.$rank") == $'USR1\nUSR2' ]] || fail "rank $rank got $(cat "$WORK/got.$rank"), not SIGUSR1 then SIGUSR2"
done

# A worker that does not handle SIGUSR1 dies of it: exit 128 + 10.
signal_sleeping_run 1 USR1
expect_code 138
expect_stderr 'rank 0 .*killed by SIGUSR1'
