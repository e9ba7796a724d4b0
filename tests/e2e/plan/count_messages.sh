# Counts below 1, fractions and more workers than CPUs get messages that say
# what to do, in the singular where there is one.
source "$(dirname "$0")/../lib.sh"

for option in -n -t; do
  run_mptrain plan "$option" 0
  expect_code 2
  expect_stderr "^mptrain: error:.*0 is not from 1 to"
  run_mptrain plan "$option" 1.5
  expect_code 2
  expect_stderr "^mptrain: error:.*1.5 is not a whole number"
done

run_mptrain plan -n 3 -t 1 --topology-synthetic "package:1 core:2 pu:1"
expect_code 2
expect_stderr '^mptrain: error: 3 workers on 2 usable CPUs.*use -n 2 or fewer'

# One CPU: "use -n 1", not "use -n 1 or fewer".
run_mptrain plan -n 2 --topology-synthetic "package:1 core:1 pu:1"
expect_code 2
expect_stderr '^mptrain: error: 2 workers on 1 usable CPU would.*; use -n 1, or add'

# A reserve on one thread per worker: leave --reserve out, not "--reserve 0 or less".
run_mptrain plan -n 2 -t 1 --reserve 1 --topology-synthetic "package:1 core:2 pu:1"
expect_code 2
expect_stderr '^mptrain: error: --reserve 1 leaves no compute thread of each worker.s 1 PU; use -n 1 \(2 PUs per worker\), or leave out --reserve$'

run_mptrain plan -n 1 -t 2 --reserve 1 --topology-synthetic "package:1 core:2 pu:1"
expect_code 0
grep -q -- '--reserve 1: 1 compute thread per worker' "$WORK/out" || { cat "$WORK/out"; fail "no singular reserve note"; }

run_mptrain plan -n 1 -t 3 --allow-oversubscribe --topology-synthetic "package:1 core:2 pu:1"
expect_code 0
grep -q 'oversubscribed: 1 worker x 3 threads = 3 threads on 2 usable CPUs' "$WORK/out" ||
  { cat "$WORK/out"; fail "no singular oversubscription note"; }
