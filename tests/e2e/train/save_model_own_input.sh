# --save-model never replaces an input of the run or a file that is not a
# checkpoint: the IDX files of --data — by their own name, through a hard
# link, through a symbolic link to their directory, compressed — and a text
# file are refused before training (exit 2) and left as they were. An
# empty file, an earlier checkpoint and the --resume checkpoint itself (to
# go on from it) are replaced.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data
train=(run -n 1 -t 1 --data "$WORK/data" --model logreg)

labels="$WORK/data/train-labels-idx1-ubyte"
expect_save_refused "$labels" "refusing to replace $labels: it is the training data \(--data\), $labels, an input of this run; give another path"
expect_save_refused "$WORK/data/t10k-images-idx3-ubyte" "it is the test data \(--data\)"
ln "$labels" "$WORK/labels-link"
expect_save_refused "$WORK/labels-link" "refusing to replace $WORK/labels-link: it is the training data \(--data\), $labels"
[[ $(stat -c %h "$labels") -eq 2 ]] || fail "the hard link was broken"
ln -s "$WORK/data" "$WORK/data-link"
expect_save_refused "$WORK/data-link/train-images-idx3-ubyte" "it is the training data \(--data\)"
# Through the symbolic link given as --data as well.
run_mptrain run -n 1 -t 1 --data "$WORK/data-link" --model logreg --save-model "$WORK/data/t10k-labels-idx1-ubyte"
expect_usage_error "it is the test data \(--data\)"

# Compressed inputs are inputs too.
mkdir "$WORK/gz"
make_small_data 64 16 "$WORK/gz"
gzip "$WORK/gz"/*
run_mptrain run -n 1 -t 1 --data "$WORK/gz" --model logreg --save-model "$WORK/gz/train-images-idx3-ubyte.gz"
expect_usage_error "it is the training data \(--data\), $WORK/gz/train-images-idx3-ubyte.gz"

# A file that is not a checkpoint.
echo "my notes" >"$WORK/notes.txt"
expect_save_refused "$WORK/notes.txt" "refusing to replace $WORK/notes.txt: it is not an mptrain checkpoint \(it does not start with \"MPTRCKPT\"\); move it away or give a new name"

# An empty file (from touch or mktemp) holds nothing to lose: replaced.
: >"$WORK/empty.ckpt"
run_mptrain "${train[@]}" --save-model "$WORK/empty.ckpt" --json
expect_code 0
[[ $(head -c 8 "$WORK/empty.ckpt") == MPTRCKPT ]] || fail "the empty file was not replaced by the checkpoint"

# Saving over the checkpoint the run resumed from (to go on from it next time) is allowed.
cp "$WORK/empty.ckpt" "$WORK/before.ckpt"
run_mptrain "${train[@]}" --resume "$WORK/empty.ckpt" --save-model "$WORK/empty.ckpt" --epochs 2 --json
expect_code 0
expect_json '.saved_model != null'
cmp -s "$WORK/empty.ckpt" "$WORK/before.ckpt" && fail "the resumed checkpoint was not replaced"
# And through a hard link to it.
ln "$WORK/empty.ckpt" "$WORK/resume-link.ckpt"
run_mptrain "${train[@]}" --resume "$WORK/empty.ckpt" --save-model "$WORK/resume-link.ckpt"
expect_code 0
cmp -s "$WORK/empty.ckpt" "$WORK/resume-link.ckpt" && fail "the hard link was written through instead of replaced"
exit 0
