# A --trace path that cannot be written is refused before any sampling:
# a missing directory (exit 1) or a directory given as the file (exit 2).
# When the file cannot be written at the end, the report is still printed,
# then the error (exit 1).
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"

# refused_fast ARGS...: doctor with ARGS fails within 2 s without running its command.
refused_fast() {
  local start=$SECONDS
  run_mptrain doctor "$@" -- touch "$WORK/ran"
  (( SECONDS - start <= 2 )) || fail "doctor $* took $((SECONDS - start)) s to refuse"
  [[ ! -e "$WORK/ran" ]] || fail "doctor $* ran its command before refusing"
}

refused_fast --trace /proc/nope/x.json
expect_code 1
expect_stderr '^mptrain: error: .*/proc/nope.*does not exist'

mkdir "$WORK/dir"
refused_fast --trace "$WORK/dir"
expect_usage_error "refusing to replace .*dir.*a directory"

run_mptrain doctor --trace "" --duration 0.1
expect_usage_error "--trace"

# The command takes the trace's directory away: the write fails at the end.
mkdir "$WORK/gone"
run_mptrain doctor --json --fail-on never --trace "$WORK/gone/t.json" -- rm -r "$WORK/gone"
expect_code 1
expect_json '.verdict | type == "string"'
expect_stderr '^mptrain: error: cannot write the trace: .*give another --trace path'
