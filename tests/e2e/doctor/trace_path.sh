# A --trace path that cannot be written is refused before any sampling:
# a missing directory (exit 1), a directory given as the file or a file
# that is not a trace (exit 2); an empty file is replaced.
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
expect_stderr '^mptrain: error: --trace /proc/nope/x.json: directory /proc/nope does not exist; create it or give another path$'

mkdir "$WORK/dir"
refused_fast --trace "$WORK/dir"
expect_usage_error "refusing to replace .*dir.*a directory"

# A file that is not a trace is never replaced (exit 2, before the command runs); an empty one is.
echo '{"my": "settings"}' >"$WORK/settings.json"
refused_fast --trace "$WORK/settings.json"
expect_usage_error "refusing to replace $WORK/settings.json: it is not an mptrain doctor trace .*; move it away or give a new name"
[[ $(cat "$WORK/settings.json") == '{"my": "settings"}' ]] || fail "the settings file was changed"
: >"$WORK/empty.json"
run_mptrain doctor --json --fail-on never --trace "$WORK/empty.json" -- true
expect_code 0
jq -e '.traceEvents | type == "array"' "$WORK/empty.json" >/dev/null || fail "the empty file was not replaced by the trace"

run_mptrain doctor --trace "" --duration 0.1
expect_usage_error "--trace"

# The command takes the trace's directory away: the write fails at the end.
mkdir "$WORK/gone"
run_mptrain doctor --json --fail-on never --trace "$WORK/gone/t.json" -- rm -r "$WORK/gone"
expect_code 1
expect_json '.verdict | type == "string"'
expect_stderr '^mptrain: error: cannot write the trace: .*give another --trace path'
