# topo --topology FILE.xml describes the recorded machine.
source "$(dirname "$0")/../lib.sh"

run_mptrain topo --topology "$MPTRAIN_TEST_DATA/affinity/two-sockets.xml" --json
expect_code 0
expect_json '.packages == 2 and .cores == 16 and .pus == 32 and .usable_cpus == 32'
expect_json '[.package_cpus[] | .cpus] == ["0-15", "16-31"]'
