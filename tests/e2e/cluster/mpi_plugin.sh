# mptrain's MPI plugin under a real mpirun: two ranks start MPI through it
# and every collective mptrain uses (broadcast, sums, maxima, barrier) gives
# the right answer on both. A single-node mptrain never maps libmpi.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_mpi
build=$(dirname "$MPTRAIN")
plugin="$build/libmptrain_mpi.so"
MPTRAIN_MPI_PLUGIN=$plugin mpirun -n 2 --oversubscribe "$build/tests/cluster/mptrain_mpi_probe" >"$WORK/out" 2>"$WORK/err" ||
  { cat "$WORK/out" "$WORK/err" >&2; fail "the probe failed under mpirun"; }
for rank in 0 1; do
  grep -qx "rank $rank of 2: broadcast ok, sum ok, max ok" "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "rank $rank"; }
done

# The binary itself does not link libmpi: only the plugin does, loaded under an MPI launcher.
! ldd "$MPTRAIN" | grep libmpi >/dev/null || fail "mptrain links libmpi, so every run pays its start-up"
ldd "$plugin" | grep libmpi >/dev/null || fail "the plugin does not link libmpi"
