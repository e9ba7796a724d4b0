# One worker of one thread with a fixed seed trains bit-identically
# whatever the memory layout: the same model checksum for every model and
# every kernel build this CPU runs, from several working directories and
# with environments of several sizes (which move the stack and the heap).
# ctest: timeout 300
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
# 3000 samples, as users compare runs; a sanitizer build trains about 100
# times slower, so there 320 (5 batches: the same paths, every layer).
limit=3000
if sanitizer_build; then
  limit=320
  echo "NOTE: a sanitizer build: --train-limit $limit instead of 3000" >&2
fi
make_small_data 3000 32
mkdir -p "$WORK/a/deeper/directory"

run_mptrain --version
expect_code 0
runnable=$(sed -n 's/^kernels: [a-z0-9]* (this CPU runs \(.*\))$/\1/p' "$WORK/out")
[[ -n "$runnable" ]] || { cat "$WORK/out" >&2; fail "--version names no kernel builds"; }

# checksum MODEL ISA DIR PAD: the model checksum of a run from DIR with an
# extra environment variable of PAD bytes.
checksum() {
  local pad
  pad=$(head -c "$4" /dev/zero | tr '\0' x)
  (cd "$3" && env MPTRAIN_TEST_PAD="$pad" MPTRAIN_ISA="$2" "$MPTRAIN" run -n 1 -t 1 --model "$1" --train-limit "$limit" \
    --data "$WORK/data" --json >"$WORK/out" 2>"$WORK/err")
  code=$?
  expect_code 0
  json .model_checksum
}

for isa in ${runnable//,/ }; do
  for model in cnn mlp logreg; do
    first=$(checksum "$model" "$isa" "$WORK" 0) || exit 1
    for variant in "/ 1001" "$WORK/a/deeper/directory 2000" "$MPTRAIN_SOURCE_DIR 4097" "/tmp 333"; do
      read -r dir pad <<<"$variant"
      other=$(checksum "$model" "$isa" "$dir" "$pad") || exit 1
      [[ "$other" == "$first" ]] ||
        fail "$model on $isa: checksum $other from $dir with $pad more bytes of environment, $first from $WORK"
    done
    echo "$model $isa: $first" >&2
  done
done
exit 0
