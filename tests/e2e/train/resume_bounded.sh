# --resume reads no more than a checkpoint header can promise: /dev/zero, a
# FIFO and a huge sparse file are refused at once (exit 1, saying why), not
# read into memory.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data
train=(run -n 1 -t 1 --data "$WORK/data" --model logreg)

run_mptrain "${train[@]}" --resume /dev/zero
expect_code 1
expect_stderr '^mptrain: error: --resume: /dev/zero is a character device, not a regular file; give a checkpoint file written by --save-model'

mkfifo "$WORK/fifo"
run_mptrain "${train[@]}" --resume "$WORK/fifo"
expect_code 1
expect_stderr 'fifo is a FIFO, not a regular file'

truncate -s 20G "$WORK/huge.ckpt"
run_mptrain "${train[@]}" --resume "$WORK/huge.ckpt"
expect_code 1
expect_stderr 'huge.ckpt: not an mptrain checkpoint \(it does not start with MPTRCKPT\)'

# A huge file that starts like a checkpoint: refused by its size, not read.
{ printf MPTRCKPT; head -c 64 /dev/zero; } >"$WORK/grown.ckpt"
truncate -s 20G "$WORK/grown.ckpt"
run_mptrain "${train[@]}" --resume "$WORK/grown.ckpt"
expect_code 1
expect_stderr 'grown.ckpt: 21474836480 bytes, more than any mptrain checkpoint holds \(at most [0-9]+\): the file is damaged'
