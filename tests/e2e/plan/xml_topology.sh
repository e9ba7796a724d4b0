# --topology FILE.xml plans for the machine recorded by lstopo.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n 2 --topology "$MPTRAIN_TEST_DATA/affinity/two-sockets.xml" --json
expect_code 0
expect_json '.usable_cpus == 32 and .threads_per_process == 16'
expect_json '[.workers[] | .cpus] == ["0-15", "16-31"]'
expect_json '.topology | startswith("xml: ")'
