# SIGUSR1 during built-in training saves a checkpoint to --save-model and
# training goes on to its end (exit 0); the checkpoint loads. Without
# --save-model it says that nothing was saved, and training goes on too.
# ctest: processors 2 (two workers train while it signals)
# ctest: timeout 300
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 1024 32
# Long enough (seconds) that the signal comes while the workers train.
train=(run -n 2 -t 1 --data "$WORK/data" --model cnn --epochs 40 --json)

start_mptrain "${train[@]}" --save-model "$WORK/model.ckpt"
wait_for_workers "$launcher" 2 >/dev/null || exit 1
kill -USR1 "$launcher"
for _ in $(seq 600); do
  grep -q 'SIGUSR1: saved the model' "$WORK/err" && break
  alive=$(kill -0 "$launcher" 2>/dev/null && echo yes)
  [[ -n $alive ]] || break
  sleep 0.05
done
grep -q 'SIGUSR1: saved the model after [0-9]* samples to .*model.ckpt; training goes on' "$WORK/err" ||
  { cat "$WORK/err" >&2; fail "no checkpoint note after SIGUSR1"; }
cp "$WORK/model.ckpt" "$WORK/usr1.ckpt"
wait_exit
expect_code 0
expect_json '.interrupted_by == null and .signal_checkpoints == 1 and .samples == 2 * 40 * 1024'
expect_resumes "$WORK/usr1.ckpt" cnn

# Without --save-model.
start_mptrain "${train[@]}"
wait_for_workers "$launcher" 2 >/dev/null || exit 1
signal_and_wait USR1
expect_code 0
expect_stderr 'SIGUSR1: no --save-model PATH was given, so nothing was saved; training goes on'
expect_json '.signal_checkpoints == 0 and .samples == 2 * 40 * 1024'
