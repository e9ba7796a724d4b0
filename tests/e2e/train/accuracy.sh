# Two workers, one full epoch of the default cnn on Fashion-MNIST, reach the
# peer's accuracy (the PyTorch peer reaches about 0.76 in this setting).
# ctest: processors 2 (two workers train for a whole epoch)
# ctest: timeout 300
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
require_real_data

# A sanitizer or unoptimised build trains too slowly for a full epoch.
make_small_data 1600 16
run_mptrain run -n 1 -t 1 --data "$WORK/data" --json
expect_code 0
rate=$(json '.samples_per_second | floor')
(( rate >= 5000 )) || skip "this build trains at $rate samples/s; the full-epoch check needs an optimised build"

run_mptrain run -n 2 -t 1 --eval-every-epoch --json
expect_code 0
expect_json '.samples == 120000'
expect_json '.test_accuracy >= 0.75'
expect_json '.epoch_evaluations | length == 1'
echo "accuracy $(json .test_accuracy), $(json '.samples_per_second | floor') samples/s"
