# With one worker of one thread and a fixed seed, two runs save bit-identical checkpoints.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 512 16

for run in a b; do
  run_mptrain run -n 1 -t 1 --data "$WORK/data" --seed 7 --save-model "$WORK/$run.ckpt"
  expect_code 0
done
cmp -s "$WORK/a.ckpt" "$WORK/b.ckpt" || fail "two identical runs saved different checkpoints"

run_mptrain run -n 1 -t 1 --data "$WORK/data" --seed 8 --save-model "$WORK/c.ckpt"
expect_code 0
cmp -s "$WORK/a.ckpt" "$WORK/c.ckpt" && fail "another seed saved the same checkpoint"
exit 0
