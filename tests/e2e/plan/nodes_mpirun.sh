# A real `mpirun -n 2 mptrain plan`: the two ranks plan on disjoint CPUs,
# whether mpirun binds them (its default) or not (--bind-to none).
source "$(dirname "$0")/../lib.sh"
# ctest: timeout 60
command -v mpirun >/dev/null || skip "no mpirun (Debian: openmpi-bin)"

need_unbound_cpus 2

# mpirun_plan [MPIRUN OPTIONS...]: each rank's plan --json in $WORK/plan.RANK.json.
mpirun_plan() {
  rm -f "$WORK"/plan.*.json
  # exec keeps mpirun's binding on mptrain itself; each rank writes its own file.
  mpirun -n 2 --allow-run-as-root --oversubscribe "$@" \
    sh -c 'exec "$0" plan --json >"$1/plan.$OMPI_COMM_WORLD_RANK.json"' "$MPTRAIN" "$WORK" 2>"$WORK/mpirun.err" ||
    { cat "$WORK/mpirun.err" >&2; fail "mpirun $* failed"; }
  for rank in 0 1; do
    jq -e ".node.source == \"Open MPI\" and .node.rank == $rank and .node.local_size == 2" "$WORK/plan.$rank.json" \
      >/dev/null || { cat "$WORK/plan.$rank.json" >&2; fail "rank $rank: wrong node"; }
  done
  first=$(jq -r .node.cpus "$WORK/plan.0.json")
  second=$(jq -r .node.cpus "$WORK/plan.1.json")
  echo "mpirun $*: rank 0 on $first, rank 1 on $second" >&2
  [[ -n $first && -n $second ]] || fail "an empty share"
  jq -n -e "$cpus"' ("'"$first"'" | cpus) - ("'"$second"'" | cpus) == ("'"$first"'" | cpus)' >/dev/null ||
    fail "mpirun $*: ranks share CPUs: $first and $second"
  jq -n -e "$cpus"' ("'"$first,$second"'" | cpus) - ("'"$usable"'" | cpus) == []' >/dev/null ||
    fail "mpirun $*: CPUs outside the usable $usable"
}

mpirun_plan
jq -e '.node.split == "already bound"' "$WORK/plan.1.json" >/dev/null ||
  { cat "$WORK/plan.1.json" >&2; fail "mpirun's binding was not detected"; }
mpirun_plan --bind-to none
jq -e '.node.split != "already bound" and .node.host_cpus == "'"$usable"'"' "$WORK/plan.1.json" >/dev/null ||
  { cat "$WORK/plan.1.json" >&2; fail "the host was not split"; }
