# CPU lists the kernel writes in its plain form ("8000,8002,…") are printed in the short form mptrain
# also reads ("8000-8014:2"): topo's text and JSON. The recorded tree's CPUs are beyond any real machine's.
source "$(dirname "$0")/../lib.sh"
tree="$MPTRAIN_TEST_DATA/cgroup-v2-strided"

MPTRAIN_FSROOT="$tree" run_mptrain topo --json
expect_code 0
expect_json '.cgroup.cpuset == "8000-8014:2" and .usable_cpu_list == "8000-8014:2" and .usable_cpus == 8'
expect_json '.online_cpus == "8000-8015" and .affinity_cpus == "8000-8015"'

MPTRAIN_FSROOT="$tree" run_mptrain topo
expect_code 0
grep -Eq '^ +cpuset: +8000-8014:2 \(' "$WORK/out" || { cat "$WORK/out"; fail "the cpuset is not in the short form"; }
grep -Eq '^Usable CPUs: +8 \(on CPUs 8000-8014:2\)' "$WORK/out" || { cat "$WORK/out"; fail "no short usable list"; }
grep -q '8000,8002' "$WORK/out" && { cat "$WORK/out"; fail "a plain list is printed"; }
true
