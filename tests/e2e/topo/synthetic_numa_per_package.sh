# A synthetic description without a NUMA level gets one NUMA node per package, and a note says how it was read;
# CPU lists print in the shortest form mptrain reads.
source "$(dirname "$0")/../lib.sh"

run_mptrain topo --topology-synthetic "package:2 core:16 pu:2" --json
expect_code 0
expect_json '.numa_nodes == 2 and [.numa_node_cpus[].cpus] == ["0-31", "32-63"]'
expect_json '.notes[0] | contains("read as '"'"'package:2 [numa] core:16 pu:2'"'"', one NUMA node per package")'
run_mptrain topo --topology-synthetic "package:2 core:16 pu:2"
expect_code 0
grep -q "note: 'package:2 core:16 pu:2' names no NUMA level" "$WORK/out" || { cat "$WORK/out"; fail "no note"; }

# A description that names its NUMA level is read as given, without a note.
run_mptrain topo --topology-synthetic "package:2 numa:2 core:8 pu:2" --json
expect_code 0
expect_json '.numa_nodes == 4 and .notes == []'

# One PU per core prints as a stride, which --cpus reads back.
run_mptrain plan -n 1 --physical-cores --topology-synthetic "package:2 core:16 pu:2" --json
expect_code 0
expect_json '.usable_cpu_list == "0-62:2" and .workers[0].cpus == "0-62:2"'
run_mptrain plan -n 1 --cpus 0-62:2 --topology-synthetic "package:2 core:16 pu:2" --json
expect_code 0
expect_json '.usable_cpus == 32'
