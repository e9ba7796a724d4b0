# Acceptance: -n 4 on "package:2 core:8 pu:2" gives 4 workers x 8 threads,
# two per package, disjoint CPU sets each inside one package.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n 4 --topology-synthetic "package:2 core:8 pu:2" --json
expect_code 0
expect_json '.usable_cpus == 32 and .num_processes == 4 and .threads_per_process == 8'
expect_json '.bind == "core" and .oversubscribed == false and .unused_cpus == ""'
expect_json '[.workers[] | .threads] == [8, 8, 8, 8]'
expect_json '[.workers[] | .rank] == [0, 1, 2, 3]'
expect_json '[.workers[] | select(.package == 0)] | length == 2'
expect_json '[.workers[] | select(.package == 1)] | length == 2'
expect_json "$cpus"' [.workers[] | .cpus | cpus | length] == [8, 8, 8, 8]'
expect_json "$cpus"' [.workers[] | .cpus | cpus[]] | length == (unique | length)'
# package P of this synthetic machine is CPUs 16P..16P+15
expect_json "$cpus"' all(.workers[]; .package as $p | .cpus | cpus | all(. >= 16 * $p and . < 16 * ($p + 1)))'
