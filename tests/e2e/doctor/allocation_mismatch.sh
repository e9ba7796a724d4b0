# A process allowed fewer CPUs than its launcher gave the job: a real
# `mpirun -n 1` binds its one rank to a core (Open MPI binds each rank to a
# core when it starts two or fewer), and the rank's two busy threads share
# it while the other usable CPUs stay free. The doctor, watching mpirun's
# tree, says allocation_mismatch from the rank's environment
# (OMPI_COMM_WORLD_LOCAL_SIZE, OMPI_MCA_orte_bound_at_launch) against its
# Cpus_allowed_list, with mpirun's options that fix it; under --bind-to none
# there is none.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"
command -v mpirun >/dev/null || skip "no mpirun (Debian: openmpi-bin)"
need_unbound_cpus 2
root=()
[[ $(id -u) == 0 ]] && root=(--allow-run-as-root)

run_mptrain doctor --json --fail-on never --interval 0.25 -- mpirun -n 1 "${root[@]}" "$BURN" 2 2
expect_code 0
allowed=$(jq -r '[.processes[] | select(.comm == "mptrain_burn")][0].cpus_allowed' "$WORK/out")
[[ -n $allowed && $allowed != null ]] || { cat "$WORK/out" >&2; fail "the rank was not watched"; }
usable_count=$(json .usable_cpus)
allowed_count=$(tr ',' '\n' <<<"$allowed" | awk -F- '{ n += NF > 1 ? $2 - $1 + 1 : 1 } END { print n }')
((allowed_count < usable_count)) || skip "mpirun bound the rank to a core of $allowed_count CPUs, all $usable_count usable"
expect_finding allocation_mismatch
expect_json '.findings[] | select(.kind == "allocation_mismatch") | .message |
  test("OMPI_COMM_WORLD_LOCAL_SIZE=1") and test("OMPI_MCA_orte_bound_at_launch=1")'
expect_json ".findings[] | select(.kind == \"allocation_mismatch\") | .message | contains(\"Cpus_allowed_list $allowed\")"
expect_json '.findings[] | select(.kind == "allocation_mismatch") | .fix | contains("--bind-to none") and contains("--map-by slot:PE=")'

# Unbound, the rank may use every CPU: no mismatch.
run_mptrain doctor --json --fail-on never --interval 0.25 -- mpirun -n 1 --bind-to none "${root[@]}" "$BURN" 2 2
expect_code 0
! findings | grep -x allocation_mismatch >/dev/null || { cat "$WORK/out" >&2; fail "an unbound rank called mismatched"; }
echo PASS
