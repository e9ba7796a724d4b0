# Acceptance: --physical-cores -n 4 gives 4 threads each, one PU per core.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan --physical-cores -n 4 --topology-synthetic "package:2 core:8 pu:2" --json
expect_code 0
expect_json '.usable_cpus == 16 and .threads_per_process == 4'
# core C of this synthetic machine is PUs 2C and 2C+1
expect_json "$cpus"' all(.workers[]; .cpus | cpus | (length == 4) and (map(. / 2 | floor) | unique | length == 4))'
