# The doctor names the threading runtime that owns an oversized pool from
# /proc/PID/maps, with the knob that sizes it and the exact command that
# fits: N numpy processes on Debian's pthreads OpenBLAS (N threads each).
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/corpus/lib.bash"
reason=$(need_python_module numpy python3-numpy) || skip "$reason"
[[ -e $OPENBLAS_PTHREAD_DIR/libopenblas.so.0 ]] || skip "needs $OPENBLAS_PTHREAD_DIR (apt-get install libopenblas0-pthread)"
(( N >= 2 )) || skip "needs 2 usable CPUs, have $N"

run_mptrain doctor --json -- "$WORKLOADS/procs.sh" "$N" env LD_LIBRARY_PATH="$OPENBLAS_PTHREAD_DIR" \
  "$PY" "$WORKLOADS/matmul_numpy.py" 3
expect_code 3
expect_json '[.processes[] | select(.pool_threads >= 2)] | length >= 2'
expect_json '[.processes[] | select(.pool_threads >= 2) | .runtimes[] | select(.name == "OpenBLAS (pthreads)" and .knob == "OPENBLAS_NUM_THREADS")] | length >= 2'
expect_json '[.findings[] | select(.kind == "thread_pool_too_large")][0].message | test("OpenBLAS \\(pthreads\\) \\(libopenblas")'
# Each process gets floor(N/N) = 1 thread: the variable, the command, and mptrain run.
expect_json '[.findings[] | select(.kind == "thread_pool_too_large")][0].fix | test("`OPENBLAS_NUM_THREADS=1 .*matmul_numpy.py 3`")'
expect_json "[.findings[] | select(.kind == \"thread_pool_too_large\")][0].fix | test(\"mptrain run -n $N -- \")"
