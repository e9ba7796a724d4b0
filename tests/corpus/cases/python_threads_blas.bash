# One Python process whose N threads (the program's own pool) each call
# numpy on the pthreads OpenBLAS, whose pool is sized to N: N × N threads
# in one process (naive) vs OPENBLAS_NUM_THREADS=1 (fixed). One process
# cannot use more than N CPUs; what it loses is how often a thread waits
# for a queued one, which the accounting does not show (the issue measured
# 20-28%): a warning, never exit 3.
description="one Python process, N threads each calling numpy on the pthreads OpenBLAS: default pool vs OPENBLAS_NUM_THREADS=1"
variants=(naive fixed)
expected_naive=warning
expected_fixed=healthy
requires="python3-numpy, libopenblas0-pthread"
check_requires() {
  need_python_module numpy python3-numpy || return 1
  [[ -e $OPENBLAS_PTHREAD_DIR/libopenblas.so.0 ]] || why_not "needs $OPENBLAS_PTHREAD_DIR (apt-get install libopenblas0-pthread)"
}
threads_job() {
  scope=(-- env "$@" LD_LIBRARY_PATH="$OPENBLAS_PTHREAD_DIR" CORPUS_EXPECT_BLAS=libopenblasp-
    "$PY" "$WORKLOADS/matmul_threads.py" "$N" 3)
}
scope_naive() { threads_job; }
scope_fixed() { threads_job OPENBLAS_NUM_THREADS=1; }
