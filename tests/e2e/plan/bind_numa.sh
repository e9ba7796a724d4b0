# --bind numa: workers placed on one NUMA node share all of its CPUs.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n 8 --bind numa --topology-synthetic "package:2 numa:2 core:4 pu:2" --json
expect_code 0
expect_json '.bind == "numa" and .threads_per_process == 4'
expect_json '[.workers[] | .numa_node] == [0, 0, 1, 1, 2, 2, 3, 3]'
expect_json '[.workers[] | .cpus] == ["0-7", "0-7", "8-15", "8-15", "16-23", "16-23", "24-31", "24-31"]'
