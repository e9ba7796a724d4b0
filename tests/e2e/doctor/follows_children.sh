# `doctor -- CMD` follows children and grandchildren started after it began.
# ctest: serial
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"

run_mptrain doctor --json -- bash -c "sleep 0.7; bash -c 'taskset -c $CPU $BURN 6 2; true'; true"
expect_code 3
expect_json '.verdict == "oversubscribed"'
expect_json '[.processes[] | select(.comm == "mptrain_burn")][0].pool_threads >= 5'
