# --sync-every and --lr-scaling matter only across nodes: on one node they
# are not silently ignored, a warning says they have no effect.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 64 32

run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --sync-every 2
expect_code 0
expect_stderr "^mptrain: warning: --sync-every applies only across nodes \(under mpirun or srun\); this run is one node, so it has no effect$"
run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --sync-every 2 --lr-scaling none
expect_code 0
expect_stderr "^mptrain: warning: --sync-every and --lr-scaling apply only across nodes"
run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg
expect_code 0
grep -q "only across nodes" "$WORK/err" && fail "warned about node options that were not given"
echo PASS
