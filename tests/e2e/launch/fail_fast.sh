# Rank 1 exiting 7 stops the group within the grace period: mptrain exits 7,
# names rank, pid and code with rank 1's last stderr lines, and no worker is left.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

start=$SECONDS
run_mptrain run -n 2 --grace 2 --json -- sh -c 'echo "pid $$" >&2; if [ "$RANK" = 1 ]; then echo "giving up" >&2; exit 7; fi; exec sleep 60'
expect_code 7
(( SECONDS - start < 10 )) || fail "the group took $((SECONDS - start)) s to stop"
pid=$(json '.workers[1].pid')
expect_stderr "^mptrain: error: rank 1 \(pid $pid\) exited with code 7"
expect_stderr '^  giving up$'
expect_json '.exit_code == 7 and .failed_rank == 1 and .workers[0].status == "killed by SIGTERM"'
none_alive $(json '.workers[].pid') || fail "a worker outlived the group"

# A worker that ignores SIGTERM is killed after --grace.
start=$SECONDS
ready="$WORK/rank1-ignores-term"
run_mptrain run -n 2 --grace 1 -- sh -c "
  if [ \$RANK = 0 ]; then while [ ! -e $ready ]; do sleep 0.05; done; exit 3; fi
  trap '' TERM; touch $ready; while :; do sleep 0.1; done"
expect_code 3
(( SECONDS - start < 10 )) || fail "SIGKILL after the grace period took $((SECONDS - start)) s"
expect_stderr 'killed by SIGKILL'

# Children a failed worker leaves behind go with the group.
run_mptrain run -n 2 --grace 2 -- sh -c "sleep 60 & echo \$! > $WORK/child.\$RANK
  if [ \$RANK = 1 ]; then while [ ! -s $WORK/child.0 ]; do sleep 0.05; done; exit 5; fi; wait"
expect_code 5
none_alive $(cat "$WORK/child.0" "$WORK/child.1") || fail "a worker's child outlived the group"
