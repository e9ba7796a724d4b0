# Missing, truncated and corrupt IDX files give exit 1 and name the file and the problem.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 64 32

run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --json
expect_code 0
expect_json '.samples == 64'

run_mptrain run -n 1 -t 1 --data "$WORK/nowhere"
expect_code 1
expect_stderr '^mptrain: error: --data .*nowhere: no such directory; pass --data DIR'
run_mptrain run -n 1 -t 1 --data /etc/hostname
expect_code 1
expect_stderr '^mptrain: error: --data /etc/hostname: not a directory'

# An IDX name that is there but no regular file is named as what it is, at
# once (a FIFO is never waited on, /dev/zero never read), not "not found".
for kind in fifo zero directory; do
  cp -r "$WORK/data" "$WORK/$kind"
  rm "$WORK/$kind/train-labels-idx1-ubyte"
  case $kind in
    fifo) mkfifo "$WORK/$kind/train-labels-idx1-ubyte" ;;
    zero) ln -s /dev/zero "$WORK/$kind/train-labels-idx1-ubyte" ;;
    directory) mkdir "$WORK/$kind/train-labels-idx1-ubyte" ;;
  esac
  timeout 60 "$MPTRAIN" run -n 1 -t 1 --data "$WORK/$kind" >"$WORK/out" 2>"$WORK/err"
  code=$?
  [[ $code != 124 ]] || fail "--data with a $kind as the labels file hung"
  expect_code 1
  expect_stderr "^mptrain: error: .*$kind/train-labels-idx1-ubyte is a (FIFO|character device|directory), not a regular file; give a readable IDX file"
done

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
