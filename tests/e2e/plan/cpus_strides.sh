# --cpus takes the kernel's strided lists: A-B:S every S-th CPU, A-B:U/G the first U of every G.
# (Lists come back plain while they are short enough to read at a glance.)
source "$(dirname "$0")/../lib.sh"
synthetic=(--topology-synthetic "package:2 core:8 pu:2")

run_mptrain plan -n 2 --cpus 0-15:2 "${synthetic[@]}" --json
expect_code 0
expect_json '.usable_cpus == 8 and .usable_cpu_list == "0,2,4,6,8,10,12,14"'
expect_json '[.workers[] | .cpus] == ["0,2,4,6", "8,10,12,14"]'

run_mptrain plan -n 2 --cpus 0-31:2/8 "${synthetic[@]}" --json
expect_code 0
expect_json '.usable_cpu_list == "0-1,8-9,16-17,24-25"'
expect_json '[.workers[] | .cpus] == ["0-1,8-9", "16-17,24-25"] and [.workers[] | .package] == [0, 1]'

run_mptrain plan --cpus 0-15:0 "${synthetic[@]}"
expect_usage_error "--cpus: bad stride '0'"
run_mptrain plan --cpus 0-15:3/2 "${synthetic[@]}"
expect_usage_error "--cpus: .*takes 3 CPUs of every group of 2"
run_mptrain plan --cpus 4:2 "${synthetic[@]}"
expect_usage_error "--cpus: stride without a range"
