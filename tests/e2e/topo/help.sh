# topo --help documents its options.
source "$(dirname "$0")/../lib.sh"

run_mptrain topo --help
expect_code 0
for option in --json --topology --topology-synthetic; do
  grep -q -- "$option" "$WORK/out" || fail "topo --help does not document $option"
done
