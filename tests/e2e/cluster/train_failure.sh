# A training worker killed on node 1 stops the training on node 0 too: the
# MPI job ends, mpirun exits non-zero, and no worker is left behind.
# ctest: timeout 200
# ctest: processors 2 (two nodes train)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_mpi
need_data

timeout 150 mpirun -n 2 --oversubscribe "$MPTRAIN" run -n 1 --data "$data" --epochs 50 --sync-every 0.2 \
  >"$WORK/out" 2>"$WORK/err" &
job=$!
# job_mptrains: this job's mptrain processes (both nodes' and their children), not another test's.
job_mptrains() {
  local pid
  for pid in $(descendants "$job"); do
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) == mptrain ]] && echo "$pid"
  done
}
# node 1's mptrain: the one whose environment says Open MPI rank 1; its
# worker is the child that leads a process group of its own (the other
# child, the watchdog, stays in mptrain's group; which starts first varies).
node1_worker() {
  local pid child
  for pid in $(job_mptrains); do
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -x 'OMPI_COMM_WORLD_RANK=1' >/dev/null || continue
    for child in $(pgrep -P "$pid" -x mptrain); do
      [[ $(awk '{print $5}' "/proc/$child/stat" 2>/dev/null) == "$child" ]] && { echo "$child"; return 0; }
    done
    return 1
  done
  return 1
}
worker=""
for _ in $(seq 100); do
  worker=$(node1_worker) && [[ -n "$worker" ]] && break
  sleep 0.1
done
[[ -n "$worker" ]] || { kill "$job"; fail "node 1's training worker never started"; }
sleep 1
mptrains=$(job_mptrains | tr '\n' ' ')  # both nodes' mptrain and their workers
kill -9 "$worker"
start=$SECONDS
wait "$job"
code=$?
((SECONDS - start < 60)) || fail "node 0 was not stopped (took $((SECONDS - start)) s)"
[[ $code != 0 ]] || { cat "$WORK/err" >&2; fail "mpirun exited 0 though a training worker was killed"; }
expect_stderr "this node ends the MPI job on every node: training worker rank 0 \(pid $worker\) killed by SIGKILL"
# gone PIDS...: none of the processes is alive (zombies count as gone).
gone() {
  local pid state
  for pid in "$@"; do
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || continue
    [[ "$state" == Z ]] || return 1
  done
}
# mpirun's end does not wait for every process it was told to end: give
# them time to go (30 s: a loaded machine is slow, and the point is that
# they go, not how fast).
for _ in $(seq 300); do gone $mptrains && break; sleep 0.1; done
# shellcheck disable=SC2086
gone $mptrains || {
  list=$(echo $mptrains | tr ' ' ',')
  ps -o pid,ppid,stat,etime,args -p "$list" >&2
  fail "a process of the job outlived it by 30 s"
}
