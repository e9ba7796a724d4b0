# SIGINT mid-training stops the workers after their batch, and the model is
# still saved and loadable.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 512 32

start_endless_training --save-model "$WORK/model.ckpt" --json
sleep 0.5
signal_and_wait INT
[[ $code -eq 130 ]] || { cat "$WORK/err" >&2; fail "expected exit 130 after SIGINT, got $code"; }
expect_json '.interrupted_by == "SIGINT" and .samples > 0 and .saved_model != null'
[[ -s "$WORK/model.ckpt" ]] || fail "no checkpoint saved after SIGINT"

expect_resumes "$WORK/model.ckpt"
