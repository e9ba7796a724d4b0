# tune remembers what it found: the result is saved under the user's cache
# directory keyed by the command (or in --save FILE), `tune --show` lists it
# and whether it applies here, and `run --tuned -- CMD` applies the saved
# launch, saying which result and how old, and refuses one measured on other
# CPUs or another machine, one for another command, and options that clash.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_ticker 0.05
program=("$WORK/ticker")

run_mptrain tune --json --only-tries --warmup 0.3 --trial 0.7 --budget "$(budget_for 4 2)" --progress tick -- \
  "${program[@]}"
expect_code 0
expect_stderr "result saved in $WORK/cache/mptrain/tune/[0-9a-f]+\.json; mptrain run --tuned -- "
saved=$(echo "$WORK"/cache/mptrain/tune/*.json)
jq -e --arg p "${program[0]}" '.command == [$p] and (.cpus | test("N=[0-9]+$")) and (.topology | test("PU"))' \
  "$saved" >/dev/null || fail "the saved result is not what tune found: $(cat "$saved")"
expect_nothing_left "$WORK/ticker"

run_mptrain tune --show --json
expect_code 0
expect_json '.results | length == 1'
expect_json '.results[0].applies_here == true'

# The saved result applied (a dry run shows the plan it makes and runs nothing).
run_mptrain run --tuned --dry-run -- "${program[@]}"
expect_code 0
expect_stderr "^mptrain: run: --tuned: .*measured [0-9]+ s ago, $saved\)"

# A result whose winner is two processes of one thread: run --tuned plans them.
jq '.winner = ["-n", "2", "-t", "1"] | .speedup = 3.5' "$saved" >"$WORK/two.json"
run_mptrain run --tuned="$WORK/two.json" --dry-run --json -- "${program[@]}"
expect_code 0
expect_stderr "^mptrain: run: --tuned: -n 2 -t 1 \(tune's winner for this command, 3.50x the program bare"
expect_json '.plan.num_processes == 2 and .plan.threads_per_process == 1'
refused 2 "give no -n beside it" run --tuned="$WORK/two.json" -n 1 -- "${program[@]}"

# Refused: measured on other CPUs, on another machine, for another command, none saved.
jq '.cpus = "0-511, N=512"' "$saved" >"$WORK/cpus.json"
refused 2 "measured on CPUs 0-511, N=512, .* measure again with mptrain tune -- " \
  run --tuned="$WORK/cpus.json" -- "${program[@]}"
jq '.topology = "8 packages, 8 NUMA nodes, 256 cores, 512 PUs: another CPU"' "$saved" >"$WORK/machine.json"
refused 2 "measured on another machine" run --tuned="$WORK/machine.json" -- "${program[@]}"
refused 2 "holds tune's result for '.*ticker', not for 'touch " run --tuned="$saved" -- touch "$WORK/ran"
refused 2 "no result of mptrain tune for 'touch .* measure one with mptrain tune -- touch" \
  run --tuned -- touch "$WORK/ran"

run_mptrain tune --show --save "$WORK/cpus.json"
expect_code 0
grep -q ' no .*ticker' "$WORK/out" || { cat "$WORK/out" >&2; fail "--show does not say the result does not apply here"; }
