# SIGUSR2, SIGALRM and the other stop signals end built-in training as
# SIGTERM does: the workers stop after their batch, the model is saved and
# loads, the report names the signal, and the exit code is 128 + signal.
# ctest: serial
# ctest: timeout 300
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_idx_set "$WORK/data" train 512
make_idx_set "$WORK/data" t10k 32

for pair in USR2:140 ALRM:142 XCPU:152 PWR:158; do
  signal=${pair%:*}
  rm -f "$WORK/model.ckpt"
  "$MPTRAIN" run -n 2 -t 1 --data "$WORK/data" --model logreg --epochs 100000 --save-model "$WORK/model.ckpt" \
    --json >"$WORK/out" 2>"$WORK/err" &
  parent=$!
  wait_for_workers "$parent" 2 >/dev/null || exit 1
  kill -s "$signal" "$parent"
  wait "$parent"
  code=$?
  expect_code "${pair#*:}"
  expect_json ".interrupted_by == \"SIG$signal\" and .samples > 0 and .saved_model != null and .failed_rank == null"
  run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --resume "$WORK/model.ckpt" --epochs 0
  expect_code 0
done
