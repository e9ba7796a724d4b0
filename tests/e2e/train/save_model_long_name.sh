# --save-model names of every legal length work, because the temporary file
# beside the target has a short name of its own: names of 246 to 255 bytes
# (which used to fail at save, after training) are saved and replaced. What
# cannot be created is refused before training with exit 2 saying how long
# it is: a name over NAME_MAX, a directory name over it, a path over
# PATH_MAX (made of directories that exist).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data
train=(run -n 1 -t 1 --data "$WORK/data" --model logreg)
mkdir "$WORK/out.d"

# name N: a name of N bytes.
name() { printf 'm%.0s' $(seq "$1"); }
# expect_no_training: the last run did not train.
expect_no_training() { if grep -q 'samples/s' "$WORK/err" "$WORK/out"; then fail "it trained before refusing"; fi; }

for length in 246 250 255; do
  target="$WORK/out.d/$(name "$length")"
  run_mptrain "${train[@]}" --save-model "$target"
  expect_code 0
  [[ $(head -c 8 "$target") == MPTRCKPT ]] || fail "no checkpoint saved under a $length-byte name"
  # Replacing it works as well, and leaves nothing else in the directory.
  run_mptrain "${train[@]}" --save-model "$target" --epochs 2
  expect_code 0
  [[ $(ls -A "$WORK/out.d" | wc -l) -eq 1 ]] || { ls -A "$WORK/out.d" >&2; fail "files left beside the checkpoint"; }
  rm "$target"
done

# One byte more than NAME_MAX: exit 2 before training, saying how long.
run_mptrain "${train[@]}" --save-model "$WORK/out.d/$(name 256)"
expect_usage_error "--save-model: the name m+… in .* is 256 bytes; its file system takes at most 255 \(NAME_MAX\): give a shorter name"
expect_no_training

# A directory name over NAME_MAX.
run_mptrain "${train[@]}" --save-model "$WORK/$(name 300)/model.ckpt"
expect_usage_error "--save-model: the name m+… .* is 300 bytes"
expect_no_training

# A path over PATH_MAX made of directories that exist (created one level at a time).
deep="$WORK/deep"
mkdir "$deep"
(cd "$deep" && for _ in $(seq 22); do mkdir "$(name 200)" && cd "$(name 200)" || exit 1; done) || fail "cannot create the deep tree"
long="$deep$(printf "/$(name 200)%.0s" $(seq 22))/model.ckpt"
(( ${#long} > 4096 )) || fail "the test path is only ${#long} bytes"
run_mptrain "${train[@]}" --save-model "$long"
expect_usage_error "--save-model: the path .* is ${#long} bytes; Linux takes at most 4095 \(PATH_MAX\): give a shorter path"
expect_no_training
exit 0
