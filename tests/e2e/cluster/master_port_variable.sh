# Nodes started by hand (or by a PyTorchJob) take MASTER_PORT or
# PET_MASTER_PORT from the environment; one that is not a port is refused
# (exit 2, naming the variable) instead of silently becoming 29500, which
# could leave the nodes on different ports.
source "$(dirname "$0")/../lib.sh"

# nodes [OPTION...]: a dry run of node 0 of 2 started by hand.
nodes() { run_mptrain run --nnodes 2 --master-addr 10.0.0.1 -n 1 --dry-run --json "$@" -- touch "$WORK/ran"; }
advice='is not a port \(1-65535\); fix or unset it, or give --master-port PORT on every node$'
for port in abc 99999 0 -1 65536 80x 1e3; do
  MASTER_PORT=$port nodes
  expect_usage_error "MASTER_PORT=$port $advice"
  [[ ! -s $WORK/out ]] || fail "MASTER_PORT=$port: a plan was printed"
done
PET_MASTER_PORT=http MASTER_PORT=29400 nodes
expect_usage_error "PET_MASTER_PORT=http $advice"
# --master-port wins over a bad variable; good values are used as given.
MASTER_PORT=abc nodes --master-port 29401
expect_code 0
expect_json '.ranks[0].env.MASTER_PORT == "29401"'
MASTER_PORT=29402 nodes
expect_code 0
expect_json '.ranks[0].env.MASTER_PORT == "29402"'
PET_MASTER_PORT=29403 MASTER_PORT=abc nodes
expect_code 0
expect_json '.ranks[0].env.MASTER_PORT == "29403"'
# Unset or empty: torchrun's default.
MASTER_PORT= nodes
expect_code 0
expect_json '.ranks[0].env.MASTER_PORT == "29500"'
[[ ! -e $WORK/ran ]] || fail "--dry-run ran the command"
echo PASS
