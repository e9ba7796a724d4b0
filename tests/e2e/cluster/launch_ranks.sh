# `run -- CMD` across nodes: under mpirun each node's workers get global
# RANK/WORLD_SIZE, their node's GROUP_RANK, and node 0's MASTER_ADDR and
# MASTER_PORT, agreed over MPI; they do not inherit Open MPI's variables;
# their lines are tagged with the global rank.
# Started by hand with --nnodes/--node-rank/--master-addr, the same.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_mpi

script='echo "rank=$RANK world=$WORLD_SIZE local=$LOCAL_RANK/$LOCAL_WORLD_SIZE group=$GROUP_RANK/$GROUP_WORLD_SIZE" \
  "role=$ROLE_RANK/$ROLE_WORLD_SIZE master=$MASTER_ADDR:$MASTER_PORT ompi=${OMPI_COMM_WORLD_RANK-unset}"'

# check_ranks: the two nodes' lines in $WORK/out (or $WORK/out.*) show ranks 0 and 1 of 2, one per node, one master.
check_ranks() {
  local files=("$@") rank
  for rank in 0 1; do
    # The tag is the global rank, as torchrun's --tee prefixes are: [1] on node 1.
    grep -hq "^\[$rank\] rank=$rank world=2 local=0/1 group=$rank/2 role=$rank/2 master=[^ ]*:[0-9]* ompi=unset\$" \
      "${files[@]}" || { cat "${files[@]}" >&2; fail "no worker with global rank $rank on node $rank"; }
  done
  [[ $(grep -ho 'master=[^ ]*' "${files[@]}" | sort -u | wc -l) == 1 ]] || fail "the nodes got different masters"
}

mpirun_mptrain 2 run -n 1 -- /bin/sh -c "$script"
[[ $code == 0 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "mpirun -n 2 mptrain run failed ($code)"; }
check_ranks "$WORK/out"

# each_rank NAME ARGS...: `mptrain run ARGS -- true` on 2 ranks under mpirun, rank R's stdout in
# $WORK/NAME.R (each rank writes its own document: mpirun would interleave the two on one stdout).
each_rank() {
  local name=$1
  shift
  timeout 120 mpirun -n 2 --oversubscribe sh -c 'out=$1; shift; "$0" run "$@" -- true >"$out.$OMPI_COMM_WORLD_RANK"' \
    "$MPTRAIN" "$WORK/$name" "$@" 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "mptrain run $* under mpirun failed"; }
}

# --dry-run under mpirun shows the global ranks, and the Open MPI variables it removes.
each_rank dry -n 1 --dry-run --json
jq -s -e 'map(.ranks[0].env.RANK) | sort == ["0", "1"]' "$WORK/dry.0" "$WORK/dry.1" >/dev/null ||
  { cat "$WORK/dry.0" >&2; fail "the dry runs do not show global ranks 0 and 1"; }
jq -s -e 'all(.ranks[0].unset | index("OMPI_COMM_WORLD_RANK") != null)' "$WORK/dry.0" "$WORK/dry.1" >/dev/null ||
  fail "the dry run does not show the Open MPI variables it removes"

# Each rank's --json document says which node it is and its workers' global ranks, so that a CI
# step reading them never sees two documents alike.
each_rank doc -n 1 --json
jq -s -e 'map(.node.rank) | sort == [0, 1]' "$WORK/doc.0" "$WORK/doc.1" >/dev/null ||
  { cat "$WORK/doc.0" >&2; fail "the documents do not name nodes 0 and 1"; }
jq -s -e 'map(.workers[0].global_rank) | sort == [0, 1]' "$WORK/doc.0" "$WORK/doc.1" >/dev/null ||
  fail "the documents do not give their workers' global ranks 0 and 1"
jq -s -e 'all(.node.count == 2 and .node.source == "Open MPI" and (.node.host | length > 0))' \
  "$WORK/doc.0" "$WORK/doc.1" >/dev/null || { cat "$WORK/doc.1" >&2; fail "a document lacks its node's count, source or host"; }

# By hand, without MPI: two mptrain on this host, node 0's address given.
for node in 0 1; do
  "$MPTRAIN" run -n 1 --nnodes 2 --node-rank "$node" --master-addr 127.0.0.1 -- /bin/sh -c "$script" \
    >"$WORK/out.$node" 2>"$WORK/err.$node" &
done
wait || true
check_ranks "$WORK/out.0" "$WORK/out.1"
grep -q 'master=127.0.0.1:29500' "$WORK/out.0" || fail "by hand, MASTER_PORT is not torchrun's 29500"
# The loopback address puts both nodes on this host: each gets its own CPU.
[[ $(cat "$WORK/err.0" "$WORK/err.1" | awk '$1 == 0 && $2 ~ /^[0-9]+$/ { print $3 }' | sort -u | wc -l) == 2 ]] ||
  { cat "$WORK/err.0" "$WORK/err.1" >&2; fail "the two nodes on this host did not get CPUs of their own"; }

# Several nodes without MPI and without node 0's address: a usage error.
run_mptrain run -n 1 --nnodes 2 --node-rank 1 -- true
expect_usage_error "2 nodes without MPI need node 0's address"
