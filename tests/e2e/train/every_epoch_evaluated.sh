# --eval-every-epoch evaluates every epoch, however short, each on the model
# as it was when every worker had completed that epoch (a snapshot in the
# shared store), while the workers go on with the next one.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 512 64

# 1. Epochs far shorter than the monitor's tick: every one is evaluated, in order.
run_mptrain run -n 2 -t 1 --data "$WORK/data" --model logreg --epochs 6 --eval-every-epoch --json
expect_code 0
expect_json '[.epoch_evaluations[].epoch] == [1, 2, 3, 4, 5, 6]'
expect_json 'all(.epoch_evaluations[]; .test_accuracy >= 0 and .test_accuracy <= 1 and (.test_loss | type) == "number")'
expect_json '.epoch_evaluations[-1].test_loss == .test_loss'
for epoch in 1 2 3 4 5; do expect_stderr "^mptrain: epoch $epoch: test accuracy [0-9.]+, test loss [0-9.]+$"; done

# 2. Each evaluation is of its epoch's model: one worker of one thread
#    trains bit-identically, so epoch K of a 3-epoch run evaluates exactly as
#    the final model of a K-epoch run.
one=(run -n 1 -t 1 --data "$WORK/data" --model mlp --json)
run_mptrain "${one[@]}" --epochs 3 --eval-every-epoch
expect_code 0
expect_json '[.epoch_evaluations[].epoch] == [1, 2, 3]'
cp "$WORK/out" "$WORK/three.json"
for epoch in 1 2; do
  run_mptrain "${one[@]}" --epochs "$epoch"
  expect_code 0
  want=$(json .test_loss)
  got=$(jq -r ".epoch_evaluations[$((epoch - 1))].test_loss" "$WORK/three.json")
  [[ "$got" == "$want" ]] || fail "epoch $epoch evaluated to loss $got; a $epoch-epoch run's model has $want"
done

# 3. The snapshots have a bound: more than 1 GiB of them is refused up front.
run_mptrain run -n 1 --data "$WORK/data" --model mlp --epochs 100000 --eval-every-epoch
expect_code 2
expect_stderr "^mptrain: error: --eval-every-epoch keeps the model of every epoch .* train fewer epochs per run"
exit 0
