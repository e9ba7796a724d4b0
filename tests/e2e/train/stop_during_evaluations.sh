# --eval-every-epoch with epochs far shorter than an evaluation, so that
# evaluations queue: SIGINT is answered between two of them (one is done per
# tick of the group), the model is saved, and the evaluations still queued
# are said to be left out instead of run first (SIGINT, SIGINT, SIGTERM
# waited 25-33 s for such a backlog, and a SIGKILL 8 s after the first
# SIGINT left no checkpoint).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
# 16 training images an epoch against 2,000 test images an evaluation, with the cnn (4,000 epochs:
# each keeps a snapshot of the model until it is evaluated, 340 MB at most).
make_small_data 16 2000
start_mptrain run -n 1 -t 1 --data "$WORK/data" --epochs 4000 --eval-every-epoch --save-model "$WORK/model.ckpt"
for _ in $(seq 200); do
  (($(grep -c 'test accuracy' "$WORK/err") >= 2)) && break
  sleep 0.1
done
(($(grep -c 'test accuracy' "$WORK/err") >= 2)) || { kill "$launcher"; cat "$WORK/err" >&2; fail "no epoch was evaluated in 20 s"; }
signal_and_wait INT
[[ $code -eq 130 ]] || { cat "$WORK/err" >&2; fail "expected exit 130 after SIGINT, got $code"; }
expect_stderr "^mptrain: SIGINT: the evaluations of the epochs still queued are left out$"
[[ -s "$WORK/model.ckpt" ]] || fail "no checkpoint saved after SIGINT"
run_mptrain run -n 1 -t 1 --data "$WORK/data" --resume "$WORK/model.ckpt" --epochs 0
expect_code 0
echo PASS
