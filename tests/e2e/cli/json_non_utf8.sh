# Text that is not UTF-8 (a command's argument, a file name) never loses a
# finished --json report: its invalid bytes are written as U+FFFD, and the
# exit code is the job's.
# ctest: timeout 120
source "$(dirname "$0")/../lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/e2e/train/fixtures.bash"

# expect_valid_json: the last run's stdout is exactly one JSON document.
expect_valid_json() {
  [[ $(jq -s 'length' "$WORK/out" 2>/dev/null) == 1 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "no valid JSON"; }
}

run_mptrain run -n 1 --json -- echo $'\xff'
expect_code 0
expect_valid_json
expect_json '.exit_code == 0 and .command[1] == "\ufffd"'

run_mptrain run -n 1 --json -- sh -c 'exit 3' $'caf\xe9'
expect_code 3
expect_valid_json
expect_json '.exit_code == 3 and .command[3] == "caf\ufffd"'

# The doctor names the watched processes' command lines.
run_mptrain doctor --json --fail-on never --interval 0.05 -- sh -c 'sleep 1' $'sleeper-\xfe'
expect_code 0
expect_valid_json

# A topology file whose name is not UTF-8: plan and topo report its name.
xml="$WORK/machine-"$'\xfe'".xml"
cp "$MPTRAIN_TEST_DATA/affinity/two-sockets.xml" "$xml"
run_mptrain plan --json -n 2 --topology "$xml"
expect_code 0
expect_valid_json
expect_json '.topology | contains("machine-\ufffd.xml")'
run_mptrain topo --json --topology "$xml"
expect_code 0
expect_valid_json
expect_json '.topology | contains("machine-\ufffd.xml")'

# A checkpoint name that is not UTF-8: trained, saved under its real name, reported.
make_small_data 200 50
model="$WORK/model-"$'\xff'".ckpt"
run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --save-model "$model" --json
expect_code 0
expect_valid_json
expect_json '.saved_model | endswith("model-\ufffd.ckpt")'
[[ -s "$model" ]] || fail "the model was not saved under its own name"
