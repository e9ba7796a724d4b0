# N processes of an OpenMP pool (GNU OpenMP) that meets at a barrier every
# 300 microseconds: OMP_NUM_THREADS=N each (naive) vs 1 (fixed). The team
# moves only while all its threads run: the job's loss is near the high end
# of its range.
description="N OpenMP processes, a barrier every 300 us: OMP_NUM_THREADS=N each vs 1"
variants=(naive fixed)
expected_naive=oversubscribed
expected_fixed=healthy
requires="cc with OpenMP (libgomp)"
check_requires() {
  need_command cc gcc || return 1
  compiled omp_chunks >/dev/null 2>&1 || why_not "cannot build workloads/omp_chunks.c with cc -fopenmp (apt-get install gcc)"
}
chunks_job() { scope=(-- "$WORKLOADS/procs.sh" "$N" env OMP_NUM_THREADS="$1" "$(compiled omp_chunks)" 3 300); }
scope_naive() { chunks_job "$N"; }
scope_fixed() { chunks_job 1; }
