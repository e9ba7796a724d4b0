# N processes of an OpenMP pool (GNU OpenMP) of independent chunks that
# meet at a barrier every 200 ms: OMP_NUM_THREADS=N each (naive: N² threads
# on N CPUs) vs 1 (fixed). Each process runs at about half the speed it
# would alone (the processes' loss, which decides oversubscribed), while
# the CPUs keep doing work: the job's own loss is small, near the low end
# of its range.
description="N OpenMP processes, independent 200 ms chunks between barriers: OMP_NUM_THREADS=N each vs 1"
variants=(naive fixed)
expected_naive=oversubscribed
expected_fixed=healthy
requires="cc with OpenMP (libgomp)"
check_requires() {
  need_command cc gcc || return 1
  compiled omp_chunks >/dev/null 2>&1 || why_not "cannot build workloads/omp_chunks.c with cc -fopenmp (apt-get install gcc)"
}
chunks_job() { scope=(-- "$WORKLOADS/procs.sh" "$N" env OMP_NUM_THREADS="$1" "$(compiled omp_chunks)" 3 200000); }
scope_naive() { chunks_job "$N"; }
scope_fixed() { chunks_job 1; }
