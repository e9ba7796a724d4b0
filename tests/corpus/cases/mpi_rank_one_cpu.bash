# One MPI rank (Open MPI's mpirun) of an OpenMP program with N threads:
# Open MPI binds each rank to one core by default for two ranks or fewer,
# so the rank's N threads share one core's CPUs while the others stay idle
# (naive) vs mpirun --bind-to none (fixed). The loss is the CPUs left idle,
# whatever the barriers.
description="mpirun -np 1 of an N-thread OpenMP program: bound to one core by default vs --bind-to none"
variants=(naive fixed)
expected_naive=oversubscribed
expected_fixed=healthy
requires="openmpi-bin, cc with OpenMP (libgomp)"
# mpirun refuses root unless told; harmless for other users.
MPIRUN=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 1)
check_requires() {
  need_command mpirun openmpi-bin || return 1
  need_command cc gcc || return 1
  compiled omp_chunks >/dev/null 2>&1 || why_not "cannot build workloads/omp_chunks.c with cc -fopenmp (apt-get install gcc)"
  # The premise: the default binding leaves the rank fewer CPUs than N (not so where a core has N CPUs).
  local allowed
  allowed=$("${MPIRUN[@]}" nproc 2>/dev/null) || why_not "mpirun -np 1 nproc failed here"
  ((allowed < N)) || why_not "Open MPI's default binding leaves the rank $allowed of $N CPUs here: nothing to show"
}
rank_job() { scope=(-- "${MPIRUN[@]}" "$@" env OMP_NUM_THREADS="$N" "$(compiled omp_chunks)" 3 200000); }
scope_naive() { rank_job; }
scope_fixed() { rank_job --bind-to none; }
