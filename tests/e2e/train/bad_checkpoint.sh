# Garbage, truncated and corrupted checkpoints are refused with exit 1 and a clear message.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 64 32

run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --save-model "$WORK/good.ckpt"
expect_code 0

echo "not a model" >"$WORK/junk.ckpt"
run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --resume "$WORK/junk.ckpt"
expect_code 1
expect_stderr '^mptrain: error: .*junk.ckpt: not an mptrain checkpoint'

head -c 100 "$WORK/good.ckpt" >"$WORK/short.ckpt"
run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --resume "$WORK/short.ckpt"
expect_code 1
expect_stderr '^mptrain: error: .*short.ckpt: truncated'

cp "$WORK/good.ckpt" "$WORK/flipped.ckpt"
printf '\xff\xff\xff\xff' | dd of="$WORK/flipped.ckpt" bs=1 seek=200 conv=notrunc status=none
run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --resume "$WORK/flipped.ckpt"
expect_code 1
expect_stderr '^mptrain: error: .*flipped.ckpt: checksum mismatch'

run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --resume "$WORK/missing.ckpt"
expect_code 1
expect_stderr '^mptrain: error: .*missing.ckpt'
