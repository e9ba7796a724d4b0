# topo --topology-synthetic describes that machine; all of its PUs count as usable.
source "$(dirname "$0")/../lib.sh"

run_mptrain topo --topology-synthetic "package:2 numa:2 core:4 pu:2" --json
expect_code 0
expect_json '.packages == 2 and .numa_nodes == 4 and .cores == 16 and .pus == 32'
expect_json '.usable_cpus == 32 and .usable_cpu_list == "0-31" and .limited_by == "topology"'
expect_json '.cgroup.version == null and .cgroup.quota_cpus == null'
expect_json '[.numa_node_cpus[] | .cpus] == ["0-7", "8-15", "16-23", "24-31"]'
