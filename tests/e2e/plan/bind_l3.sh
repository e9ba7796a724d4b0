# --bind l3 gives each worker the whole L3 domain (an EPYC core complex) it is placed in; core binding keeps a
# worker that fits in an L3 domain inside one; a topology without L3 caches is refused for --bind l3.
source "$(dirname "$0")/../lib.sh"
epyc="$MPTRAIN_TEST_DATA/affinity/epyc-2s-8l3.xml"

run_mptrain plan -n 16 --bind l3 --topology "$epyc" --json
expect_code 0
expect_json '.bind == "l3" and .threads_per_process == 8'
expect_json '[.workers[] | .l3] == [range(0; 16)] and .workers[0].cpus == "0-3,64-67" and .workers[15].cpus == "60-63,124-127"'

run_mptrain plan -n 16 -t 6 --topology "$epyc" --json
expect_code 0
expect_json '[.workers[] | .l3] | (all(. != null) and (unique | length) == 16)'

refused 2 "--bind l3: synthetic: package:2 core:4 pu:2 shows no L3 cache" \
  plan -n 2 --bind l3 --topology-synthetic "package:2 core:4 pu:2"
run_mptrain plan -n 4 --bind l3 --topology-synthetic "package:2 l3:2 core:2 pu:2"
expect_code 0
grep -Eq '^ +3 +12-15 ' "$WORK/out" || { cat "$WORK/out"; fail "rank 3 is not on the last L3 domain"; }
