# A program that starts its own workers, each sizing its OpenMP team to
# every CPU (and spinning at its barriers), is oversubscribed as written: tune finds a faster launch, names
# its command, and that command reproduces the gain. Whole-run trials (the
# program ends on its own); nothing outlives a trial.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: label timing (it checks that the launch tune names is faster)
# ctest: timeout 300
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
build_forked_pools
export -n OMP_NUM_THREADS
# Threads that spin at every barrier (as an environment tuned for one job per node sets them) make
# the oversubscribed teams wait out time slices: the cost is large on any machine, not only a busy one.
export OMP_WAIT_POLICY=active
program=("$WORK/forked_pools" 4 1000)

run_mptrain tune --json --only-tries --budget 120 -- "${program[@]}"
expect_code 0
expect_json '.baseline.baseline == true and .baseline.trials >= 1'
expect_json '.metric.kind == "s" and .metric.higher_is_better == false'
expect_json '.winner != null and .winner.baseline == false and .winner.speedup > 1'
expect_json '.measured_throughput_loss > 0 and .elapsed_seconds <= .budget_seconds'
expect_json '[.candidates[] | select(.trials > 0) | .throughput.unit == "s"] | all'
expect_nothing_left "$WORK/forked_pools"

# The named command, run as it is printed, beats the program run bare (the
# best of two runs each; the gap is many times over), less what its launch costs alone.
read -r -a named <<<"$(json '.winner.command')"
[[ "${named[0]}" == mptrain ]] || fail "the winner's command does not start with mptrain: ${named[*]}"
named[0]=$MPTRAIN
best() {
  local best=
  for _ in 1 2; do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || fail "'$*' failed"
    end=$(date +%s%N)
    [[ -z "$best" ]] || ((end - start < best)) && best=$((end - start))
  done
  echo "$best"
}
# What the same launch costs around a program that does nothing (milliseconds for a release build,
# most of a second for a sanitizer build) is mptrain's own start and stop, not the program's speed.
launch=("${named[@]}")
for i in "${!launch[@]}"; do
  if [[ "${launch[i]}" == -- ]]; then
    launch=("${launch[@]:0:i+1}" true)
    break
  fi
done
[[ "${launch[-1]}" == true ]] || fail "the winner's command has no '--' before the program: ${named[*]}"
bare=$(best "${program[@]}")
cured=$(best "${named[@]}")
empty=$(best "${launch[@]}")
echo "bare $((bare / 1000000)) ms, winner $((cured / 1000000)) ms, its launch alone $((empty / 1000000)) ms: ${named[*]:1}"
((cured - empty < bare)) ||
  fail "the winner's command took $cured ns ($empty ns of it its launch), the bare program $bare ns"

# The same program printing its rate ("R.R step/s"): far faster under mptrain than bare. A winner
# against the baseline with its speed-up, the launches at the top listed as tied (the winner first),
# the baseline's loss measured as 1 - baseline/winner, and the unit taken from what the program prints.
run_mptrain tune --json --only-tries --try "--bind none" --warmup 1 --trial 1.5 --budget 14 \
  --metric '([0-9.]+) step/s' -- "$WORK/forked_pools" 4 1000000 rate
expect_code 0
expect_json '.metric.kind == "step/s" and .winner.throughput.unit == "step/s"'
expect_json '.winner != null and .winner.baseline == false and .winner.speedup > 1'
expect_json '.tied[0].label == .winner.label and ([.tied[] | .baseline] | any | not)'
expect_json '(.measured_throughput_loss - (1 - .baseline.throughput.median / .winner.throughput.median)) | fabs < 1e-9'
expect_nothing_left "$WORK/forked_pools"
