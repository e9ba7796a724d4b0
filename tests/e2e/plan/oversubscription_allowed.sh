# Acceptance: --allow-oversubscribe plans M x T > N and says so.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n 4 -t 9 --allow-oversubscribe --topology-synthetic "package:2 core:8 pu:2" --json
expect_code 0
expect_json '.oversubscribed == true and .num_processes == 4 and .threads_per_process == 9'
expect_json '[.workers[] | .threads] == [9, 9, 9, 9]'
expect_json '.notes | any(test("oversubscribed"))'
