# Missing, truncated and corrupt IDX files give exit 1 and name the file and the problem.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_idx_set "$WORK/data" train 64
make_idx_set "$WORK/data" t10k 32

run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --json
expect_code 0
expect_json '.samples == 64'

run_mptrain run -n 1 -t 1 --data "$WORK/nowhere"
expect_code 1
expect_stderr '^mptrain: error: .*nowhere.*train-images-idx3-ubyte'

cp -r "$WORK/data" "$WORK/short"
truncate -s -500 "$WORK/short/train-images-idx3-ubyte"
run_mptrain run -n 1 -t 1 --data "$WORK/short"
expect_code 1
expect_stderr '^mptrain: error: .*short/train-images-idx3-ubyte: truncated'

cp -r "$WORK/data" "$WORK/gz"
gzip "$WORK/gz/t10k-images-idx3-ubyte"
printf 'garbage!' | dd of="$WORK/gz/t10k-images-idx3-ubyte.gz" bs=1 seek=30 conv=notrunc status=none
run_mptrain run -n 1 -t 1 --data "$WORK/gz"
expect_code 1
expect_stderr '^mptrain: error: .*t10k-images-idx3-ubyte.gz: (corrupt|truncated)'

cp -r "$WORK/data" "$WORK/labels"
printf '\x0c' | dd of="$WORK/labels/train-labels-idx1-ubyte" bs=1 seek=20 conv=notrunc status=none
run_mptrain run -n 1 -t 1 --data "$WORK/labels"
expect_code 1
expect_stderr '^mptrain: error: .*train-labels-idx1-ubyte: label 12 of sample 12 is outside 0-9'
