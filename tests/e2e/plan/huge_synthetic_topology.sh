# A synthetic topology is bounded: a billion PUs is refused at once with the
# limit named (it used to hang in hwloc), and a machine at the limit of
# 4,096 PUs is planned, one worker per PU included.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"

run_mptrain plan --topology-synthetic "package:1000 core:1000 pu:1000"
expect_code 2
expect_stderr '^mptrain: error: .*more than 4096 PUs'
run_mptrain topo --topology-synthetic "package:8 core:512 pu:2" --json
expect_code 2
expect_stderr 'more than 4096 PUs'

run_mptrain plan -n 4096 --topology-synthetic "package:4 core:512 pu:2" --json
expect_code 0
expect_json '.usable_cpus == 4096 and (.workers | length) == 4096 and .unused_cpus == ""'
run_mptrain plan --topology-synthetic "package:4 numa:2 core:256 pu:2" --json
expect_code 0
expect_json '.num_processes == 4 and .threads_per_process == 1024'

# An arity hwloc might read differently (hexadecimal) is refused before hwloc sees it.
run_mptrain plan --topology-synthetic "core:0x1000 pu:2"
expect_code 2
expect_stderr 'bad synthetic topology'
