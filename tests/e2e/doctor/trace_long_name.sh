# A --trace name of 255 bytes (NAME_MAX) is written, because the temporary
# file beside it has a short name of its own; a name of 256 bytes is refused
# (exit 2) before the command runs, saying how long it is.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
name() { printf 't%.0s' $(seq "$1"); }

trace="$WORK/$(name 255)"
run_mptrain doctor --json --fail-on never --interval 0.05 --trace "$trace" -- sleep 0.2
expect_code 0
jq -e '.traceEvents | type == "array"' "$trace" >/dev/null || fail "no trace written under a 255-byte name"
[[ $(ls -A "$WORK" | grep -c '^\.mptrain') -eq 0 ]] || { ls -A "$WORK" >&2; fail "temporary or lock files left"; }

run_mptrain doctor --trace "$WORK/$(name 256)" -- touch "$WORK/ran"
expect_usage_error "--trace: the name t+… in .* is 256 bytes; its file system takes at most 255 \(NAME_MAX\)"
[[ ! -e "$WORK/ran" ]] || fail "doctor ran its command before refusing the trace name"

# A path longer than PATH_MAX: refused (exit 2) before the command runs, saying how long.
long="$WORK/$(printf 'd/%.0s' $(seq 2100))t.json"
run_mptrain doctor --trace "$long" -- touch "$WORK/ran"
expect_usage_error "--trace: the path .* is ${#long} bytes; Linux takes at most 4095 \(PATH_MAX\): give a shorter path"
[[ ! -e "$WORK/ran" ]] || fail "doctor ran its command before refusing the trace path"
