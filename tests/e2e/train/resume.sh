# A saved model resumes where it was: evaluating it again gives the same
# figures, and training on from it changes it.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 640 64

run_mptrain run -n 1 -t 1 --data "$WORK/data" --model mlp --save-model "$WORK/first.ckpt" --json
expect_code 0
accuracy=$(json .test_accuracy)
loss=$(json .test_loss)

run_mptrain run -n 1 -t 1 --data "$WORK/data" --model mlp --resume "$WORK/first.ckpt" --epochs 0 --json
expect_code 0
expect_json ".samples == 0 and .test_accuracy == $accuracy and .test_loss == $loss"

run_mptrain run -n 1 -t 1 --data "$WORK/data" --model mlp --resume "$WORK/first.ckpt" --save-model "$WORK/second.ckpt"
expect_code 0
cmp -s "$WORK/first.ckpt" "$WORK/second.ckpt" && fail "training on from a checkpoint did not change it"

run_mptrain run -n 1 -t 1 --data "$WORK/data" --model cnn --resume "$WORK/first.ckpt" --epochs 0
expect_code 1
expect_stderr "^mptrain: error: .*first.ckpt.*'mlp'.*--model mlp"
