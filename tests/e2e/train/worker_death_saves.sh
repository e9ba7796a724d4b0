# A training worker killed by SIGKILL does not lose the model: the shared
# store survives it, so --save-model still writes it; mptrain still exits
# with the worker's code (137), names the worker and says where the model
# went, and the checkpoint resumes.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 512 32

start_endless_training --save-model "$WORK/model.ckpt" --json
victim=$(tail -n 1 <<<"$workers")
kill -9 "$victim"
wait_exit
[[ $code -eq 137 ]] || { cat "$WORK/err" >&2; fail "expected the worker's exit code 137, got $code"; }
expect_stderr "^mptrain: error: training worker rank [01] \(pid $victim\) killed by SIGKILL"
expect_stderr "the model as the workers left it is saved in $WORK/model.ckpt"
[[ -s "$WORK/model.ckpt" ]] || fail "no checkpoint saved after a worker died"
expect_json ".saved_model == \"$WORK/model.ckpt\" and (.failed_rank | type) == \"number\" and .test_samples == 32"

expect_resumes "$WORK/model.ckpt"

# Without --save-model nothing is saved, and the error does not pretend it was.
start_endless_training
kill -9 "$(head -n 1 <<<"$workers")"
wait_exit
[[ $code -eq 137 ]] || { cat "$WORK/err" >&2; fail "expected exit 137 without --save-model, got $code"; }
grep -q 'saved in' "$WORK/err" && fail "said a model was saved without --save-model"
exit 0
