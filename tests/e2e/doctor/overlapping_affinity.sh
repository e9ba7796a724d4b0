# Two busy processes pinned to the same CPU while the other CPU is left:
# an overlapping-affinity finding, found in the children of the command.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"

run_mptrain doctor --json -- bash -c "taskset -c $CPU $BURN 1 2.5 & taskset -c $CPU $BURN 1 2.5 & wait"
expect_code 3
expect_finding overlapping_affinity
expect_json "[.findings[] | select(.kind == \"overlapping_affinity\")][0].numbers.cpu == $CPU"
expect_json '[.findings[] | select(.kind == "overlapping_affinity")][0].fix | test("mptrain run -n|taskset")'
expect_json '[.processes[] | select(.comm == "mptrain_burn")] | length == 2'
