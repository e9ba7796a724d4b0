# SIGINT mid-training stops the workers after their batch, and the model is
# still saved and loadable.
# ctest: serial
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_idx_set "$WORK/data" train 512
make_idx_set "$WORK/data" t10k 32

"$MPTRAIN" run -n 2 -t 1 --data "$WORK/data" --model logreg --epochs 100000 --save-model "$WORK/model.ckpt" \
  --json >"$WORK/out" 2>"$WORK/err" &
parent=$!
wait_for_workers "$parent" 2 >/dev/null || exit 1
sleep 0.5
kill -INT "$parent"
wait "$parent"
code=$?
[[ $code -eq 130 ]] || { cat "$WORK/err" >&2; fail "expected exit 130 after SIGINT, got $code"; }
expect_json '.interrupted_by == "SIGINT" and .samples > 0 and .saved_model != null'
[[ -s "$WORK/model.ckpt" ]] || fail "no checkpoint saved after SIGINT"

run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --resume "$WORK/model.ckpt" --epochs 0
expect_code 0
