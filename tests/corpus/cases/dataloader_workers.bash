# A trainer fed by N DataLoader-like worker processes (multiprocessing,
# forked) whose transform is a numpy product on the pthreads OpenBLAS:
# each worker's BLAS pool sized to N (naive: N² threads in the workers) vs
# OPENBLAS_NUM_THREADS=1 in the workers (fixed), as torch's DataLoader sets
# its workers to one thread.
description="a trainer fed by N worker processes each with an N-thread OpenBLAS pool vs OPENBLAS_NUM_THREADS=1"
variants=(naive fixed)
expected_naive=oversubscribed
expected_fixed=healthy
requires="python3-numpy, libopenblas0-pthread"
check_requires() {
  need_python_module numpy python3-numpy || return 1
  [[ -e $OPENBLAS_PTHREAD_DIR/libopenblas.so.0 ]] || why_not "needs $OPENBLAS_PTHREAD_DIR (apt-get install libopenblas0-pthread)"
}
loader_job() {
  scope=(-- env "$@" LD_LIBRARY_PATH="$OPENBLAS_PTHREAD_DIR" "$PY" "$WORKLOADS/loader_trainer.py" "$N" 3)
}
scope_naive() { loader_job; }
scope_fixed() { loader_job OPENBLAS_NUM_THREADS=1; }
