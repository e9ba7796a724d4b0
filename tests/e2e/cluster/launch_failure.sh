# A worker killed on node 1 stops node 0 too: node 1's mptrain ends the MPI
# job with the worker's code, node 0's is torn down by Open MPI and says why,
# mpirun exits non-zero, and no worker is left behind.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_mpi

seconds="60.$$"  # a duration no other process sleeps, to find node 0's worker by
start=$SECONDS
mpirun_mptrain 2 run -n 1 --grace 2 -- /bin/sh -c \
  "if [ \"\$GROUP_RANK\" = 1 ]; then sleep 1; kill -9 \$\$; else exec sleep $seconds; fi"
((SECONDS - start < 30)) || fail "node 0 was not stopped (took $((SECONDS - start)) s)"
[[ $code != 0 ]] || fail "mpirun exited 0 though a worker was killed"
expect_stderr "node 1 ends the MPI job on every node: rank 0 \(pid [0-9]+\) killed by SIGKILL"
expect_stderr "killed by SIGTERM after mptrain forwarded SIGTERM \(the MPI launcher stops every node"
sleep 0.5
! pgrep -f "sleep $seconds" >/dev/null || { pkill -f "sleep $seconds"; fail "node 0's worker outlived the job"; }
