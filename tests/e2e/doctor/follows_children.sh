# `doctor -- CMD` follows children and grandchildren started after it began.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"

run_mptrain doctor --json -- bash -c "sleep 0.7; bash -c 'taskset -c $CPU $BURN 6 2; true'; true"
expect_code 3
expect_json '.verdict == "oversubscribed"'
expect_json '[.processes[] | select(.comm == "mptrain_burn")][0].pool_threads >= 5'
