# Nodes started by hand with a loopback master address all run on this host:
# local rank = node rank, local size = node count. Any other address means one per host.
source "$(dirname "$0")/../lib.sh"
machine=(--topology-synthetic "package:2 core:4 pu:2")

for address in 127.0.0.1 localhost ::1; do
  run_mptrain plan "${machine[@]}" --nnodes 2 --node-rank 1 --master-addr "$address" --json
  expect_code 0
  expect_json '.node.local_rank == 1 and .node.local_size == 2 and .node.cpus == "8-15"'
  expect_json '.node.local_source == "loopback master address"'
done
run_mptrain plan "${machine[@]}" --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --json
expect_code 0
expect_json '.node.local_rank == 0 and .node.cpus == "0-7"'

run_mptrain plan "${machine[@]}" --nnodes 2 --node-rank 1 --master-addr 10.0.0.1 --json
expect_code 0
expect_json '.node.rank == 1 and .node.local_rank == 0 and .node.local_size == 1 and .node.cpus == "0-15"'

# A Kubernetes PyTorchJob's PET_* variables read the same way.
PET_NNODES=2 PET_NODE_RANK=1 PET_MASTER_ADDR=127.0.0.1 run_mptrain plan "${machine[@]}" --json
expect_code 0
expect_json '.node.source == "PyTorchJob" and .node.rank == 1 and .node.cpus == "8-15"'

# run plans its workers on the same share of this machine.
run_mptrain plan --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --json
expect_code 0
share=$(json .node.cpus)
run_mptrain run --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --dry-run --json -- /bin/true
expect_code 0
expect_json "$cpus"' [.ranks[].cpus | cpus[]] - ("'"$share"'" | cpus) == []'
