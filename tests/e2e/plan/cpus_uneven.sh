# --cpus restricts the plan; workers stay where the CPUs are.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan --cpus 0-5,9 --topology-synthetic "package:2 core:8 pu:1" --json
expect_code 0
expect_json '.usable_cpus == 7 and .num_processes == 2 and .threads_per_process == 3'
expect_json '[.workers[] | .cpus] == ["0-2", "3-5"] and [.workers[] | .package] == [0, 0]'
expect_json '.unused_cpus == "9"'
