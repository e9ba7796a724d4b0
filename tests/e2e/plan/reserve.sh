# --reserve K leaves K PUs of each worker's set for helper threads.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n 2 --reserve 1 --topology-synthetic "package:2 core:12 pu:2" --json
expect_code 0
expect_json '.cpus_per_process == 24 and .threads_per_process == 23'
expect_json '[.workers[] | .threads] == [23, 23] and [.workers[] | .cpus] == ["0-23", "24-47"]'
