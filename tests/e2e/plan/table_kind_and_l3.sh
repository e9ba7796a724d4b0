# plan's table shows each worker's kind of core where the machine has several kinds, and its L3
# caches where the machine shows them; neither column where it does not apply.
source "$(dirname "$0")/../lib.sh"
data="$MPTRAIN_TEST_DATA/affinity"
row() { grep -Eq "$1" "$WORK/out" || { cat "$WORK/out"; fail "no line matching: $1"; }; }
no_row() { grep -Eq "$1" "$WORK/out" && { cat "$WORK/out"; fail "a line matches: $1"; }; true; }

run_mptrain plan -n 5 --topology "$data/hybrid-client.xml"
expect_code 0
row '^RANK +CPUS +KIND +L3 +PACKAGE +NUMA NODE +THREADS$'
row '^ +0 +0-3 +performance +0 +0 +0 +4$'
row '^ +4 +16-19 +efficiency +0 +0 +0 +4$'

run_mptrain plan -n 2 -t 10 --cpu-kind all --topology "$data/hybrid-client.xml"
expect_code 0
row '^ +0 +0-9 +performance +0 '
row '^ +1 +10-19 +mixed +0 '

# An EPYC: one L3 per core complex; a worker per NUMA node holds eight of them.
run_mptrain plan -n 2 --bind numa --topology "$data/epyc-2s-8l3.xml"
expect_code 0
row '^RANK +CPUS +L3 +PACKAGE +NUMA NODE +THREADS$'
row '^ +1 +32-63,96-127 +8-15 +1 +1 +64$'
run_mptrain plan -n 16 --bind l3 --topology "$data/epyc-2s-8l3.xml"
expect_code 0
row '^ +1 +4-7,68-71 +1 +0 +0 +8$'

# The synthetic 2-socket SMT case: one kind of core, no L3 level: neither column.
run_mptrain plan -n 3 --topology-synthetic "package:2 core:16 pu:2"
expect_code 0
row '^RANK +CPUS +PACKAGE +NUMA NODE +THREADS$'
no_row 'KIND|L3'
# A synthetic description with an L3 level gets the L3 column.
run_mptrain plan -n 4 --topology-synthetic "package:2 l3:2 core:4 pu:2"
expect_code 0
row '^RANK +CPUS +L3 +PACKAGE +NUMA NODE +THREADS$'
row '^ +3 +24-31 +3 +1 +1 +8$'
