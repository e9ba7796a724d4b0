# Without --topology the plan is for this machine and agrees with `topo`.
source "$(dirname "$0")/../lib.sh"

run_mptrain topo --json
expect_code 0
n=$(json .usable_cpus)
run_mptrain plan --json
expect_code 0
expect_json ".usable_cpus == $n and .num_processes >= 1 and .threads_per_process >= 1"
expect_json '.topology == "this machine"'
