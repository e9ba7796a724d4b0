# doctor passes the command's words through verbatim and refuses durations
# that are not a finite number of seconds.
source "$(dirname "$0")/../lib.sh"

run_mptrain doctor --fail-on never -- sh -c 'printf "%s|" "$@"' arg0 '[1,2]' 'a b'
expect_code 0
grep -q '^\[1,2\]|a b|' "$WORK/out" || { cat "$WORK/out"; fail "the command's words were changed"; }

for bad in nan inf -1 0; do
  timeout 10 "$MPTRAIN" doctor --duration "$bad" >"$WORK/out" 2>"$WORK/err"
  code=$?
  expect_code 2
  expect_stderr '^mptrain: error: --duration'
done
