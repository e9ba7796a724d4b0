# A resumed run says what it resumed (the checkpoint's model, epochs done
# and samples seen; JSON `resumed`), and --resume without --model trains
# the checkpoint's model; a --model that contradicts it is still refused.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 256 16
train=(run -n 1 -t 1 --data "$WORK/data")

run_mptrain "${train[@]}" --model mlp --save-model "$WORK/m.ckpt" --json
expect_code 0
expect_json '.resumed == null'
run_mptrain "${train[@]}" --resume "$WORK/m.ckpt" --json
expect_code 0
expect_json '.resumed.model == "mlp" and .resumed.epochs == 1 and .resumed.samples == 256'
expect_json ".resumed.path == \"$WORK/m.ckpt\""
run_mptrain "${train[@]}" --resume "$WORK/m.ckpt"
expect_code 0
grep -Eq "resumed from +$WORK/m.ckpt: mlp model, 1 epoch and 256 samples before this run" "$WORK/out" ||
  { cat "$WORK/out" >&2; fail "the text report does not say what it resumed"; }
run_mptrain "${train[@]}" --resume "$WORK/m.ckpt" --model cnn
expect_code 1
expect_stderr "holds a 'mlp' model, not 'cnn'"
exit 0
