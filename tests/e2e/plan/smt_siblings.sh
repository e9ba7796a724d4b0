# Two workers never share a core's SMT siblings: floor(64/3) = 21 is lowered to 20 (10 whole cores), an
# explicit -t 21 is refused with the nearest whole-core -t, and a plan that must share a core says so.
source "$(dirname "$0")/../lib.sh"
synthetic=(--topology-synthetic "package:2 core:16 pu:2")

run_mptrain plan -n 3 "${synthetic[@]}" --json
expect_code 0
expect_json '.threads_per_process == 20'
expect_json 'any(.notes[]; startswith("-t lowered from 21 to 20"))'
# Core C of this machine is PUs 2C and 2C+1: no core has PUs in two workers.
expect_json "$cpus"' [.workers[] | [.cpus | cpus[] | . / 2 | floor] | unique] | add | (length == (unique | length))'

refused 2 "-n 3 x -t 21: ranks 0 and 1 would share the SMT siblings of one core \(CPUs 20-21\).*use -t 20, or --physical-cores" \
  plan -n 3 -t 21 "${synthetic[@]}"

run_mptrain plan -n 3 --topology-synthetic "package:1 core:2 pu:2"
expect_code 0
grep -q "must share the SMT siblings of one core" "$WORK/out" || { cat "$WORK/out"; fail "the forced split is not said"; }
