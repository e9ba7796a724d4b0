# Case file (sourced by tests/corpus/run.sh after ../lib.bash). Defines:
#   description        one line: what the workload is
#   variants           naive and/or fixed
#   expected_VARIANT   the right verdict: healthy | warning | oversubscribed
#   findings_VARIANT   optional: finding kinds that set no verdict and must be
#                      found (idle_capacity); a variant without it must not
#                      get an idle_capacity finding
#   requires           what the case needs, for people; check_requires tests it
#   scope_VARIANT      sets the array `scope`: the doctor's arguments after its
#                      options, "-- CMD…" or "--duration S" (whole machine)
#   setup, cleanup     optional: run before the doctor, and always after it
description="N processes of numpy matmul on the pthreads OpenBLAS: default pool (N threads each) vs OPENBLAS_NUM_THREADS=1"
variants=(naive fixed)
expected_naive=oversubscribed
expected_fixed=healthy
requires="python3-numpy, libopenblas0-pthread"
check_requires() {
  need_python_module numpy python3-numpy || return 1
  [[ -e $OPENBLAS_PTHREAD_DIR/libopenblas.so.0 ]] || why_not "needs $OPENBLAS_PTHREAD_DIR (apt-get install libopenblas0-pthread)"
}
# numpy_job THREADS_ENV...: N matmul processes on the pthreads OpenBLAS; each
# checks in /proc/self/maps that libopenblasp (the pthreads build) is loaded.
numpy_job() {
  scope=(-- "$WORKLOADS/procs.sh" "$N" env "$@" LD_LIBRARY_PATH="$OPENBLAS_PTHREAD_DIR"
    CORPUS_EXPECT_BLAS=libopenblasp- "$PY" "$WORKLOADS/matmul_numpy.py" 3)
}
scope_naive() { numpy_job; }
scope_fixed() { numpy_job OPENBLAS_NUM_THREADS=1; }
