# --resume reads no more than a checkpoint header can promise: /dev/zero, a
# FIFO and a huge sparse file are refused at once (exit 1, saying why), not
# read into memory.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_idx_set "$WORK/data" train 64
make_idx_set "$WORK/data" t10k 16
train=(run -n 1 -t 1 --data "$WORK/data" --model logreg)

run_mptrain "${train[@]}" --resume /dev/zero
expect_code 1
expect_stderr '^mptrain: error: /dev/zero is a character device, not a regular file'

mkfifo "$WORK/fifo"
run_mptrain "${train[@]}" --resume "$WORK/fifo"
expect_code 1
expect_stderr 'fifo is a FIFO, not a regular file'

truncate -s 20G "$WORK/huge.ckpt"
run_mptrain "${train[@]}" --resume "$WORK/huge.ckpt"
expect_code 1
expect_stderr 'huge.ckpt is larger than the [0-9]+ bytes it may hold'
