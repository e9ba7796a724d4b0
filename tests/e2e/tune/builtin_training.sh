# Without a program, tune measures the built-in training's samples/s from
# its own progress lines; --train gives every candidate the training's options.
# A window shorter than the training's usual 2 s between progress lines is
# measured: its trials print one every half second.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../train/fixtures.bash"
source "$(dirname "$0")/fixtures.bash"
make_idx_set "$WORK/data" train 512
make_idx_set "$WORK/data" t10k 16

run_mptrain tune --json --only-tries --try "-n 2 -t 1" --train "--model logreg --data $WORK/data" \
  --warmup 1 --trial 1.2 --budget "$(budget_for 10 2)"
expect_code 0
expect_json '.metric.kind == "samples/s"'
expect_json '.baseline.origin == "baseline" and .baseline.options == [] and .baseline.baseline == false'
expect_json '[.candidates[] | select(.trials > 0) | .throughput.median > 0] | (length == 2 and all)'
expect_json '.candidates[1].command == "mptrain run -n 2 -t 1 --model logreg --data '"$WORK"'/data"'
expect_json '.baseline.verdict != null'
expect_nothing_left "$WORK/data"

run_mptrain tune --dry-run --train "--model mlp"
expect_code 0
grep -q 'mptrain run --model mlp$' "$WORK/out" || { cat "$WORK/out" >&2; fail "the dry run does not list the default plan with --train's options"; }
