# Acceptance: -n 3 on 32 PUs gives 10 threads each and leaves 2 CPUs unused.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n 3 --topology-synthetic "package:2 core:8 pu:2" --json
expect_code 0
expect_json '.num_processes == 3 and .threads_per_process == 10'
expect_json '[.workers[] | .threads] == [10, 10, 10]'
expect_json "$cpus"' .unused_cpus | cpus | length == 2'
expect_json "$cpus"' [.workers[] | .cpus | cpus[]] | length == 30 and length == (unique | length)'
