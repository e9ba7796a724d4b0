# N processes of an OpenMP program (GNU OpenMP) whose team meets at a
# barrier every millisecond: OMP_NUM_THREADS=N each (naive: N² threads on N
# CPUs, waiters spinning while a teammate is queued) vs OMP_NUM_THREADS=1.
# The case a queued share understates: the team moves only while all its
# threads run.
description="N OpenMP processes with millisecond parallel regions: OMP_NUM_THREADS=N each vs OMP_NUM_THREADS=1"
variants=(naive fixed)
expected_naive=oversubscribed
expected_fixed=healthy
requires="cc with OpenMP (libgomp)"
check_requires() {
  need_command cc gcc || return 1
  compiled omp_spin >/dev/null 2>&1 || why_not "cannot build workloads/omp_spin.c with cc -fopenmp (apt-get install gcc)"
}
team_job() { scope=(-- "$WORKLOADS/procs.sh" "$N" env OMP_NUM_THREADS="$1" "$(compiled omp_spin)" 3); }
scope_naive() { team_job "$N"; }
scope_fixed() { team_job 1; }
