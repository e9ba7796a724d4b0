# A recorded Open MPI environment (rank 1 of 2 on this host, not bound): the
# plan takes local rank 1's share of this machine, disjoint from rank 0's.
source "$(dirname "$0")/../lib.sh"

need_unbound_cpus 2

# plan_as LOCAL_RANK: mptrain plan --json as Open MPI's rank LOCAL_RANK of 2 on this host.
plan_as() {
  OMPI_COMM_WORLD_RANK=$1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=$1 OMPI_COMM_WORLD_LOCAL_SIZE=2 \
    PMIX_RANK=$1 run_mptrain plan --json
  expect_code 0
  expect_json ".node.source == \"Open MPI\" and .node.rank == $1 and .node.count == 2"
  expect_json ".node.local_rank == $1 and .node.local_size == 2 and .node.host_cpus == \"$usable\""
  expect_json '.usable_cpu_list == .node.cpus and all(.workers[]; .cpus as $c | ($c | length) > 0)'
}

plan_as 0
first=$(json .node.cpus)
plan_as 1
second=$(json .node.cpus)
expect_json "$cpus"' ("'"$first"'" | cpus) - ("'"$second"'" | cpus) == ("'"$first"'" | cpus)'
expect_json "$cpus"' ("'"$first,$second"'" | cpus) - ("'"$usable"'" | cpus) == []'
# On a 2-CPU machine with one package: CPU 1.
run_mptrain topo --json
if [[ $(json .usable_cpu_list) == 0-1 && $(json .packages) == 1 ]]; then
  [[ $second == 1 ]] || fail "rank 1 got CPUs $second, not 1"
fi
exit 0
