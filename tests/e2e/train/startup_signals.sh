# Signals during training's start-up (the plan, loading the data, the
# model): a stop signal (SIGTERM, SIGHUP, SIGUSR2) stops the run cleanly as
# soon as the phase ends — exit 128 + signal, a line saying nothing was
# trained or saved, the --save-model lock file gone — and a SIGUSR1 is
# answered with a note (there is nothing to save yet) while the run goes on.
# The signal is sent the moment the lock file appears: during the ~250 ms of
# loading Fashion-MNIST, or (on a fast machine) just after; both end cleanly.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
require_real_data

# signalled_run SIGNAL ARGS...: starts training with --save-model, sends SIGNAL when its lock file appears,
# waits; $code and $WORK/out, $WORK/err as run_mptrain.
signalled_run() {
  local signal=$1
  shift
  rm -f "$WORK"/.mptrain-lock-* "$WORK/m.ckpt"
  start_mptrain run -n 1 -t 1 --save-model "$WORK/m.ckpt" "$@"
  for _ in $(seq 400); do
    compgen -G "$WORK/.mptrain-lock-*" >/dev/null && break
    sleep 0.005
  done
  signal_and_wait "$signal"
}

for signal in TERM HUP USR2; do
  number=$(kill -l "$signal")
  signalled_run "$signal" --epochs 1
  expect_code $((128 + number))
  if grep -q "during start-up" "$WORK/err"; then
    expect_stderr "^mptrain: error: SIG$signal during start-up \((planning|loading the data|preparing the model)\): stopped before training began; nothing was trained or saved$"
    [[ ! -e "$WORK/m.ckpt" ]] || fail "a run stopped before training saved a model"
  else
    expect_stderr "SIG$signal"  # it came after start-up: the stop of a training run, reported
  fi
  [[ -z $(compgen -G "$WORK/.mptrain-lock-*") ]] || fail "SIG$signal in start-up left the --save-model lock file"
done

signalled_run USR1 --epochs 1 --train-limit 2000
expect_code 0
grep -Eq "SIGUSR1 during start-up \(.*\): there is no model to save yet; training goes on|SIGUSR1: saved the model" "$WORK/err" ||
  { cat "$WORK/err" >&2; fail "a SIGUSR1 in start-up was dropped without a word"; }
[[ -e "$WORK/m.ckpt" ]] || fail "the run did not save at its end"
exit 0
