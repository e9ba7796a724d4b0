# --bind package gives each worker its package; --bind none gives every usable CPU.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n 2 -t 4 --bind package --topology-synthetic "package:2 core:8 pu:2" --json
expect_code 0
expect_json '[.workers[] | .cpus] == ["0-15", "16-31"] and [.workers[] | .threads] == [4, 4]'

run_mptrain plan -n 2 --bind none --topology-synthetic "package:2 core:8 pu:2" --json
expect_code 0
expect_json '[.workers[] | .cpus] == ["0-31", "0-31"] and [.workers[] | .package] == [null, null]'
