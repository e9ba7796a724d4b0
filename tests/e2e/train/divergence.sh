# A run whose loss becomes NaN or infinite (or whose parameters do) stops
# with exit 1 and says so, and never saves over a good checkpoint (SPEC:
# Checkpoints).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 512 32
train=(run -t 1 --data "$WORK/data" --model mlp)

run_mptrain "${train[@]}" -n 1 --save-model "$WORK/model.ckpt"
expect_code 0
cp "$WORK/model.ckpt" "$WORK/good.ckpt"

# 1. --lr 1e30: the loss becomes NaN within the first batches.
for workers in 1 2; do
  run_mptrain "${train[@]}" -n "$workers" --lr 1e30 --save-model "$WORK/model.ckpt" --json
  expect_code 1
  expect_stderr "^mptrain: error: training diverged: the training loss of rank [01] became (NaN|infinite) in epoch 1"
  expect_stderr "the model was not saved, $WORK/model.ckpt is as it was; lower --lr \(1e\+30 now\)"
  cmp -s "$WORK/model.ckpt" "$WORK/good.ckpt" || fail "a diverged model ($workers workers) was saved over a good one"
  [[ -s "$WORK/out" ]] && fail "a diverged run printed a report: $(head -c 200 "$WORK/out")"
done

# 2. A model that is NaN from the start (--resume of a NaN checkpoint with a
#    valid checksum) is not saved either, even with no epoch trained.
command -v python3 >/dev/null || { echo "note: no python3 to write a NaN checkpoint; case 2 skipped" >&2; exit 0; }
python3 - "$WORK/good.ckpt" "$WORK/nan.ckpt" <<'PY'
import struct, sys, zlib
data = bytearray(open(sys.argv[1], "rb").read())
data[-8:-4] = struct.pack("<f", float("nan"))  # the last parameter
data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[8:-4])))
open(sys.argv[2], "wb").write(data)
PY
for epochs in 0 1; do
  run_mptrain "${train[@]}" -n 1 --resume "$WORK/nan.ckpt" --epochs "$epochs" --save-model "$WORK/model.ckpt"
  expect_code 1
  expect_stderr "^mptrain: error: training diverged: .*(NaN|infinite).*the model was not saved"
  cmp -s "$WORK/model.ckpt" "$WORK/good.ckpt" || fail "a NaN model (--epochs $epochs) was saved over a good one"
done
exit 0
