# mptrain's MPI plugin under a real mpirun: two ranks start MPI through it
# and every collective mptrain uses (broadcast, sums, maxima, barrier) gives
# the right answer on both. A single-node mptrain never maps libmpi.
source "$(dirname "$0")/../lib.sh"
build=$(dirname "$MPTRAIN")
plugin="$build/libmptrain_mpi.so"
[[ -f "$plugin" ]] || skip "mptrain was built without MPI (apt-get install libopenmpi-dev, then reconfigure)"
command -v mpirun >/dev/null || skip "mpirun is not installed (apt-get install openmpi-bin)"

# Open MPI refuses root unless told; these are its own switches for that.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI keeps allocations until exit by design; in a sanitizer build LeakSanitizer would report them as ours.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
MPTRAIN_MPI_PLUGIN=$plugin mpirun -n 2 --oversubscribe "$build/tests/cluster/mptrain_mpi_probe" >"$WORK/out" 2>"$WORK/err" ||
  { cat "$WORK/out" "$WORK/err" >&2; fail "the probe failed under mpirun"; }
for rank in 0 1; do
  grep -qx "rank $rank of 2: broadcast ok, sum ok, max ok" "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "rank $rank"; }
done

# The binary itself does not link libmpi: only the plugin does, loaded under an MPI launcher.
! ldd "$MPTRAIN" | grep -q libmpi || fail "mptrain links libmpi, so every run pays its start-up"
ldd "$plugin" | grep -q libmpi || fail "the plugin does not link libmpi"
