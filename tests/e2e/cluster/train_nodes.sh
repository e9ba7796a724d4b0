# The built-in training across 2 nodes under mpirun (one mptrain per node,
# one worker each): each node trains its half of the data, the leaders
# average over MPI every --sync-every seconds, node 0 evaluates and saves,
# and both end with the same model (the same checksum).
# ctest: timeout 300
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_mpi
need_data

# Each rank writes its own report (mpirun would interleave two documents on one stdout).
timeout 200 mpirun -n 2 --oversubscribe sh -c \
  '"$0" run -n 1 --data "$2" --train-limit 20000 --epochs 2 --sync-every 0.05 --save-model "$1.model" --json \
     >"$1.$OMPI_COMM_WORLD_RANK" 2>"$1.err.$OMPI_COMM_WORLD_RANK"' "$MPTRAIN" "$WORK/node" "$data" ||
  { cat "$WORK"/node.err.* >&2; fail "training across 2 nodes failed"; }
for node in 0 1; do
  jq -e ".nodes.count == 2 and .nodes.rank == $node and .nodes.shard_samples == 10000 and
         .nodes.first_sample == $((node * 10000)) and .nodes.sync_rounds >= 1 and .nodes.averaging_seconds >= 0 and
         (.nodes.samples_per_second | length) == 2 and .samples == 20000" "$WORK/node.$node" >/dev/null ||
    { cat "$WORK/node.$node" >&2; fail "node $node's report"; }
done
sum0=$(jq -r .model_checksum "$WORK/node.0")
[[ "$sum0" =~ ^[0-9a-f]{8}$ && "$sum0" == $(jq -r .model_checksum "$WORK/node.1") ]] ||
  fail "the nodes ended with different models ($sum0 and $(jq -r .model_checksum "$WORK/node.1"))"
jq -e '.test_accuracy > 0.5 and .saved_model != null' "$WORK/node.0" >/dev/null || fail "node 0 did not evaluate or save"
jq -e '.test_accuracy == null and .saved_model == null' "$WORK/node.1" >/dev/null || fail "node 1 evaluated or saved"

# The saved model is the averaged one: resuming it for no further epoch on one node gives node 0's accuracy.
run_mptrain run -n 1 --data "$data" --resume "$WORK/node.model" --epochs 0 --json
expect_code 0
[[ $(json .test_accuracy) == $(jq -r .test_accuracy "$WORK/node.0") ]] || fail "the saved model is not the final one"

# Several nodes started by hand cannot average: a usage error naming mpirun.
run_mptrain run -n 1 --nnodes 2 --node-rank 0 --train-limit 100
expect_usage_error "averages the model over MPI: start one mptrain per node with mpirun"
