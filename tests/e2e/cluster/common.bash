# Helpers for the multi-node scripts (sourced after ../lib.sh; the .bash
# suffix keeps this file from being registered as a test itself).

# need_mpi: skips unless mpirun and mptrain's MPI plugin are here; lets Open
# MPI run as root through its own variables (what --allow-run-as-root sets).
need_mpi() {
  command -v mpirun >/dev/null || skip "mpirun is not installed (apt-get install openmpi-bin)"
  [[ -f "$(dirname "$MPTRAIN")/libmptrain_mpi.so" ]] ||
    skip "mptrain was built without MPI (apt-get install libopenmpi-dev, then reconfigure)"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Open MPI keeps allocations until exit by design; LeakSanitizer (in a sanitizer build) would report them.
  export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
}

# mpirun_mptrain K ARGS...: `mpirun -n K mptrain ARGS`; stdout in $WORK/out, stderr in $WORK/err, code in $code.
mpirun_mptrain() {
  local k=$1
  shift
  timeout 120 mpirun -n "$k" --oversubscribe "$MPTRAIN" "$@" >"$WORK/out" 2>"$WORK/err"
  code=$?
}

# need_data: skips unless Fashion-MNIST is readable; sets $data to its directory.
need_data() {
  data=${MPTRAIN_DATA:-/usr/share/datasets/fashion-mnist}
  [[ -r "$data/train-labels-idx1-ubyte.gz" || -r "$data/train-labels-idx1-ubyte" ]] ||
    skip "no Fashion-MNIST under $data (apt-get install dataset-fashion-mnist)"
}
