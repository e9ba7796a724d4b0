# --nnodes with --local-rank/--local-size plans one node's share of a host:
# one package each when the counts match, else contiguous equal shares.
source "$(dirname "$0")/../lib.sh"
machine=(--topology-synthetic "package:2 core:4 pu:2")

run_mptrain plan "${machine[@]}" --nnodes 2 --local-rank 1 --local-size 2 --json
expect_code 0
expect_json '.node.cpus == "8-15" and .node.split == "package" and .node.host_cpus == "0-15"'
expect_json '.node.local_rank == 1 and .node.local_size == 2 and .node.count == 2 and .node.source == "--nnodes"'
expect_json '.usable_cpus == 8 and .usable_cpu_list == "8-15" and all(.workers[]; .package == 1)'

run_mptrain plan "${machine[@]}" --nnodes 3 --node-rank 2 --local-rank 2 --local-size 3 --json
expect_code 0
expect_json '.node.rank == 2 and .node.cpus == "10-14" and .node.split == "equal share" and .node.unused_cpus == "15"'
expect_json '[.notes[] | select(test("1 usable CPU left unused by the split: 15"))] | length == 1'

# --cpus selects before the split: the mptrain on the host share the selection.
run_mptrain plan "${machine[@]}" --cpus package:0 --nnodes 2 --local-rank 1 --local-size 2 --json
expect_code 0
expect_json '.node.cpus == "4-7" and .node.host_cpus == "0-7" and .usable_cpu_list == "4-7"'
run_mptrain plan "${machine[@]}" --cpus 0 --nnodes 2 --local-rank 1 --local-size 2
expect_usage_error '--cpus 0: 2 mptrain processes on this host but only 1 usable CPU'

# Alone (no option, no launcher) the node is the whole host, and says so.
run_mptrain plan "${machine[@]}" --json
expect_code 0
expect_json '.node == {"rank": 0, "count": 1, "local_rank": 0, "local_size": 1, "source": "single node",
  "local_source": "one per host", "node_list": null, "cpus": "0-15", "host_cpus": "0-15", "split": "whole host",
  "unused_cpus": ""}'

# The text report names the node and its CPUs above the table.
run_mptrain plan "${machine[@]}" --nnodes 2 --node-rank 1 --local-rank 1 --local-size 2
expect_code 0
grep -qx 'node 1 of 2 (local 1 of 2, from --nnodes): CPUs 8-15 of usable 0-15' "$WORK/out" ||
  { cat "$WORK/out" >&2; fail "no node line"; }
run_mptrain plan "${machine[@]}"
expect_code 0
if grep -q '^node ' "$WORK/out"; then fail "a single node has a node line"; fi
exit 0
