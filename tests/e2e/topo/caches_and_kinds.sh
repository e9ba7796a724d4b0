# topo shows every cache level's size and which PUs share each cache, and a hybrid CPU's kinds of core.
source "$(dirname "$0")/../lib.sh"
hybrid="$MPTRAIN_TEST_DATA/affinity/hybrid-client.xml"

run_mptrain topo --topology "$hybrid"
expect_code 0
grep -Eq '^Caches: +L1d: 48 KiB x 8, one per core; 32 KiB x 4, one per core$' "$WORK/out" ||
  { cat "$WORK/out"; fail "no L1d line"; }
grep -Eq '^ +L2: 1\.25 MiB x 8, one per core; 2 MiB x 1, CPUs 16-19$' "$WORK/out" || { cat "$WORK/out"; fail "no L2 line"; }
grep -Eq '^ +L3: 25 MiB x 1, CPUs 0-19$' "$WORK/out" || { cat "$WORK/out"; fail "no L3 line"; }
grep -Eq '^CPU kinds: +performance: CPUs 0-15 \(IntelCore, up to 4900 MHz\)$' "$WORK/out" ||
  { cat "$WORK/out"; fail "no performance kind"; }
grep -Eq '^ +efficiency: CPUs 16-19 \(IntelAtom, up to 3600 MHz\)$' "$WORK/out" || { cat "$WORK/out"; fail "no efficiency kind"; }

run_mptrain topo --topology "$hybrid" --json
expect_code 0
expect_json '[.cpu_kinds[] | [.kind, .cpus, .core_type, .max_mhz]] == [["performance", "0-15", "IntelCore", 4900], ["efficiency", "16-19", "IntelAtom", 3600]]'
expect_json '[.caches[] | .level] == ["L1d", "L2", "L3", "L1i"]'
expect_json '.caches[1].caches[8] == {"cpus": "16-19", "size_bytes": 2097152}'

# An EPYC's L3 domains: 16 caches of 32 MiB, each shared by 4 cores' 8 PUs.
run_mptrain topo --topology "$MPTRAIN_TEST_DATA/affinity/epyc-2s-8l3.xml" --json
expect_code 0
expect_json '.l3_caches == 16 and (.caches[] | select(.level == "L3") | .count == 16 and .caches[1].cpus == "4-7,68-71" and all(.caches[]; .size_bytes == 33554432))'
expect_json '.cpu_kinds == []'
