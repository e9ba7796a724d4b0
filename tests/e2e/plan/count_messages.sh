# Counts below 1 and more workers than CPUs get messages that say what to do.
source "$(dirname "$0")/../lib.sh"

for option in -n -t; do
  run_mptrain plan "$option" 0
  expect_code 2
  expect_stderr "^mptrain: error:.*not in range 1 to"
done

run_mptrain plan -n 3 -t 1 --topology-synthetic "package:1 core:2 pu:1"
expect_code 2
expect_stderr '^mptrain: error: 3 workers on 2 usable CPUs.*use -n 2 or fewer'
