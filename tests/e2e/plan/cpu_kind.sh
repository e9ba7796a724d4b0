# On a hybrid CPU each worker runs on one kind of core, the performance cores first; --cpu-kind chooses.
source "$(dirname "$0")/../lib.sh"
hybrid=(--topology "$MPTRAIN_TEST_DATA/affinity/hybrid-client.xml")

run_mptrain plan "${hybrid[@]}" --json
expect_code 0
expect_json '.threads_per_process == 16 and .workers[0].cpus == "0-15" and .workers[0].kind == "performance"'
expect_json 'any(.notes[]; contains("the efficiency cores (CPUs 16-19) are left unused"))'

run_mptrain plan -n 5 "${hybrid[@]}" --json
expect_code 0
expect_json '[.workers[] | .kind] == ["performance", "performance", "performance", "performance", "efficiency"]'

refused 2 "rank 1 would mix two kinds of core.*use -t 8, or --cpu-kind all" plan -n 2 -t 10 "${hybrid[@]}"

run_mptrain plan -n 2 -t 10 --cpu-kind all "${hybrid[@]}" --json
expect_code 0
expect_json '[.workers[] | .cpus] == ["0-9", "10-19"] and .workers[1].kind == null'

run_mptrain plan -n 2 --cpu-kind efficiency "${hybrid[@]}" --json
expect_code 0
expect_json '.usable_cpus == 4 and [.workers[] | .cpus] == ["16-17", "18-19"]'

run_mptrain plan -n 2 --cpu-kind performance "${hybrid[@]}" --json
expect_code 0
expect_json '.usable_cpu_list == "0-15"'

refused 2 "--cpu-kind efficiency: synthetic: package:1 core:4 pu:2 has one kind of core" \
  plan --cpu-kind efficiency --topology-synthetic "package:1 core:4 pu:2"
run_mptrain plan --cpu-kind fast "${hybrid[@]}"
expect_usage_error "cpu-kind"
