# --cpus takes hwloc locations, resolved against the topology planned for.
source "$(dirname "$0")/../lib.sh"
synthetic=(--topology-synthetic "package:2 numa:2 core:4 pu:2")

# cpus_of LOCATION: the plan's usable CPUs when --cpus is LOCATION, one worker.
cpus_of() {
  run_mptrain plan -n 1 --cpus "$1" "${synthetic[@]}" --json
  expect_code 0
  json .usable_cpu_list
}

[[ $(cpus_of package:1) == 16-31 ]] || fail "package:1 is not 16-31"
[[ $(cpus_of socket:1) == 16-31 ]] || fail "socket:1 is not 16-31"
[[ $(cpus_of numa:1) == 8-15 ]] || fail "numa:1 is not 8-15"
[[ $(cpus_of core:0-3) == 0-7 ]] || fail "core:0-3 is not 0-7"
[[ $(cpus_of core:0-1.pu:0) == 0,2 ]] || fail "core:0-1.pu:0 is not 0,2"
[[ $(cpus_of package:1.core:1) == 18-19 ]] || fail "package:1.core:1 is not 18-19"
[[ $(cpus_of "numa:0 core:7") == 0-7,14-15 ]] || fail "numa:0 core:7 is not 0-7,14-15"
[[ $(cpus_of "0-1 core:15") == 0-1,30-31 ]] || fail "0-1 core:15 is not 0-1,30-31"
[[ $(cpus_of core:14:4) == 0-3,28-31 ]] || fail "core:14:4 does not wrap around to cores 0-1"

# Workers are placed inside the location as anywhere else.
run_mptrain plan -n 2 --cpus package:1 "${synthetic[@]}" --json
expect_code 0
expect_json '.usable_cpus == 16 and .threads_per_process == 8'
expect_json '[.workers[] | .cpus] == ["16-23", "24-31"] and [.workers[] | .numa_node] == [2, 3]'

# The acceptance example of the brief: package:1 on a two-socket synthetic machine.
run_mptrain plan --cpus package:1 --topology-synthetic "package:2 core:8 pu:2" --json
expect_code 0
expect_json '.usable_cpu_list == "16-31" and .num_processes == 1 and .workers[0].cpus == "16-31"'
expect_json '.workers[0].package == 1'

# Locations give OS CPU numbers: core L#1 of this machine is P#1 and P#5.
run_mptrain plan -n 1 --cpus core:1 --topology-synthetic "package:2 core:2 pu:2(indexes=0,4,1,5,2,6,3,7)" --json
expect_code 0
expect_json '.workers[0].cpus == "1,5"'

# The table shows the location's CPUs too.
run_mptrain plan -n 1 --cpus numa:3 "${synthetic[@]}"
expect_code 0
grep -q '24-31' "$WORK/out" || fail "the table does not show numa:3's CPUs 24-31"
