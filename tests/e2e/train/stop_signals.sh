# SIGUSR2, SIGALRM and the other stop signals end built-in training as
# SIGTERM does: the workers stop after their batch, the model is saved and
# loads, the report names the signal, and the exit code is 128 + signal.
# ctest: processors 2 (two workers train while it signals)
# ctest: timeout 300
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 512 32

for pair in USR2:140 ALRM:142 XCPU:152 PWR:158; do
  signal=${pair%:*}
  rm -f "$WORK/model.ckpt"
  start_endless_training --save-model "$WORK/model.ckpt" --json
  signal_and_wait "$signal"
  expect_code "${pair#*:}"
  expect_json ".interrupted_by == \"SIG$signal\" and .samples > 0 and .saved_model != null and .failed_rank == null"
  expect_resumes "$WORK/model.ckpt"
done
