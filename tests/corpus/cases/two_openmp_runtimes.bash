# One process running two OpenMP runtimes at once: a GNU OpenMP program
# (libgomp) whose second thread calls a library built with clang -fopenmp
# (LLVM's libomp), both pools computing 200 ms chunks between barriers.
# Each runtime sizes its pool to all N CPUs (naive: 2N threads in one
# process) vs OMP_NUM_THREADS=max(1,N/2) for both (fixed). One process
# cannot use more than N CPUs: it loses only what its pools' meeting costs,
# which the accounting does not show (the issue measured 1-13%): a warning
# whose loss range spans the thresholds, never exit 3.
description="one process, GNU and LLVM OpenMP pools at once: each sized to N (naive) vs N/2 each (fixed)"
variants=(naive fixed)
expected_naive=warning
expected_fixed=healthy
requires="cc with OpenMP (libgomp), clang and libomp-dev (LLVM OpenMP)"
check_requires() {
  need_command cc gcc || return 1
  need_command clang clang || return 1
  compiled_two_runtimes >/dev/null 2>&1 ||
    why_not "cannot build workloads/two_runtimes.c with cc -fopenmp and llvm_chunks.c with clang -fopenmp (apt-get install gcc clang libomp-dev)"
}
runtimes_job() { scope=(-- env OMP_NUM_THREADS="$1" "$(compiled_two_runtimes)" 3 200000); }
scope_naive() { runtimes_job "$N"; }
scope_fixed() { runtimes_job $((N / 2 > 1 ? N / 2 : 1)); }
