# A --save-model path that cannot be written is refused before any training.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"

make_small_data
run_mptrain run -n 1 --data "$WORK/data" --model logreg --save-model "$WORK/missing/dir/model.ckpt"
expect_code 1
expect_stderr "^mptrain: error: --save-model $WORK/missing/dir/model.ckpt: directory $WORK/missing does not exist; create it or give another path$"
if grep -q 'samples/s' "$WORK/err" "$WORK/out"; then fail "it trained before refusing the path"; fi

# A directory is not replaced: a usage error.
run_mptrain run -n 1 --data "$WORK/data" --model logreg --save-model "$WORK"
expect_code 2
expect_stderr "is a directory"
