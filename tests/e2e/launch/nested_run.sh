# A run started inside a worker of another run plans on the worker's CPUs
# as a run of its own: no warning blames the user for what the outer run
# set (its thread counts, its OpenMP places), the inner workers get the
# inner plan's values, the outer run's placement library does not take the
# inner mptrain's pinning for a program's own, and what the outer run set
# for its workers does not reach the inner ones. A variable the user set
# before the outer run (and it kept) is still named by the inner one.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
cat >"$WORK/show.sh" <<'SCRIPT'
#!/bin/sh
echo "threads=$OMP_NUM_THREADS cpus=$MPTRAIN_CPUS places=$OMP_PLACES run_id=${TORCHELASTIC_RUN_ID-none} mine=${MINE-none}"
echo "library=$(grep -c libmptrain_place /proc/self/maps) preload=$LD_PRELOAD"
SCRIPT
chmod +x "$WORK/show.sh"
run_mptrain run -n 1 -- "$MPTRAIN" run -n 2 -- "$WORK/show.sh"
expect_code 0
grep -q "warning" "$WORK/out" "$WORK/err" && { cat "$WORK/out" "$WORK/err" >&2; fail "a nested run warned"; }
grep -q "thread pools the programs sized" "$WORK/err" && { cat "$WORK/err" >&2; fail "the inner mptrain's pinning was reported as a program's own"; }
for rank in 0 1; do
  line=$(grep "^\[0\] \[$rank\] threads=" "$WORK/out") || { cat "$WORK/out" >&2; fail "no line of inner rank $rank"; }
  [[ $line == *"threads=1 "* ]] || fail "inner rank $rank did not get the inner plan's thread count: $line"
  cpus=${line#*cpus=}
  cpus=${cpus%% *}
  [[ $line == *"places={$cpus} "* ]] || fail "inner rank $rank did not get its own OpenMP places: $line"
done
# One copy of the library, the inner run's (LD_PRELOAD named it once).
grep -q "^\[0\] \[0\] library=[1-9][0-9]* preload=[^:]*libmptrain_place.so$" "$WORK/out" || { cat "$WORK/out" >&2; fail "the inner workers' LD_PRELOAD"; }

# Under torchrun, its run id stays the outer group's, never the inner's.
run_mptrain torchrun --nproc-per-node 1 --no-python -- "$MPTRAIN" run -n 1 -- "$WORK/show.sh"
expect_code 0
grep -q "run_id=none" "$WORK/out" || { cat "$WORK/out" >&2; fail "the outer torchrun's run id reached the inner run's workers"; }

# The user's own setting, kept by the outer run with --keep-env, is the user's to the inner run too.
MINE=1 OMP_NUM_THREADS=7 run_mptrain run -n 1 --keep-env -- "$MPTRAIN" run -n 1 -- "$WORK/show.sh"
expect_code 0
grep -q "OMP_NUM_THREADS=7 is set; the workers get OMP_NUM_THREADS=2" "$WORK/err" || { cat "$WORK/out" "$WORK/err" >&2; fail "the user's own variable was not named"; }
grep -q "mine=1" "$WORK/out" || fail "the user's variable did not reach the inner workers"
exit 0
