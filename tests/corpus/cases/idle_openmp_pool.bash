description="an OpenMP program (GNU OpenMP) with a pool sized below the plan, OMP_NUM_THREADS=max(1,N/2), vs OMP_NUM_THREADS=N"
variants=(naive fixed)
expected_naive=healthy
expected_fixed=healthy
# The naive pool leaves half the CPUs idle: an idle_capacity finding naming
# OMP_NUM_THREADS and GNU OpenMP, no verdict.
findings_naive="idle_capacity"
requires="cc with OpenMP (libgomp)"
check_requires() {
  need_command cc gcc || return 1
  compiled omp_spin >/dev/null 2>&1 || why_not "cannot build workloads/omp_spin.c with cc -fopenmp (apt-get install gcc)"
}
scope_naive() { scope=(-- env OMP_NUM_THREADS=$((N / 2 > 1 ? N / 2 : 1)) "$(compiled omp_spin)" 3); }
scope_fixed() { scope=(-- env OMP_NUM_THREADS="$N" "$(compiled omp_spin)" 3); }
