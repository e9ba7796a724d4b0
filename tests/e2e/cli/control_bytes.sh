# Control bytes from arguments and the environment never reach the terminal
# raw in an error or a warning: every line goes through printable(), which
# writes them as \xHH (the message's own line breaks are kept).
source "$(dirname "$0")/../lib.sh"

no_escape() {
  LC_ALL=C grep -q $'[\e\a\x9b]' "$WORK/err" && fail "a control byte reached stderr: $(cat -v "$WORK/err")"
  return 0
}
run_mptrain plan --cpus $'\e[31mred'
expect_usage_error "--cpus: .*\\\\x1b\[31mred"
no_escape
run_mptrain $'\e]0;pwned\a'
expect_usage_error "unknown command '\\\\x1b\]0;pwned\\\\x07'"
no_escape
run_mptrain run --bind $'\e[2J' -- true
expect_usage_error "--bind: '\\\\x1b\[2J' is not one of"
no_escape
run_mptrain plan --topology-synthetic $'package:1\e[31m'
expect_code 2
no_escape
# A C1 control (U+009B, CSI in UTF-8) is escaped too.
run_mptrain plan --cpus $'\xc2\x9b31m'
expect_usage_error "\\\\x9b31m"
no_escape
MPTRAIN_FSROOT=$'/nonexist\e[31m' run_mptrain topo
[[ $code != 0 ]] || fail "topo under a missing MPTRAIN_FSROOT succeeded"
no_escape

# The training report's file names (--save-model, --resume) go through printable() too.
source "$MPTRAIN_SOURCE_DIR/tests/e2e/train/fixtures.bash"
make_small_data 64 16
odd="$WORK/"$'a\e[31mb\xc2\x9bc'
mkdir -p "$odd"
run_mptrain run -n 1 -t 1 --model logreg --data "$WORK/data" --epochs 1 --save-model "$odd/m.ckpt"
expect_code 0
grep -q 'model saved to .*a\\x1b\[31mb\\x9bc/m.ckpt$' "$WORK/out" || fail "the saved path is not escaped: $(cat -v "$WORK/out")"
LC_ALL=C grep -q $'[\e\x9b]' "$WORK/out" && fail "a control byte reached stdout: $(cat -v "$WORK/out")"
run_mptrain run -n 1 -t 1 --data "$WORK/data" --epochs 1 --resume "$odd/m.ckpt"
expect_code 0
grep -q 'resumed from .*a\\x1b\[31mb\\x9bc/m.ckpt:' "$WORK/out" || fail "the resumed path is not escaped: $(cat -v "$WORK/out")"
LC_ALL=C grep -q $'[\e\x9b]' "$WORK/out" && fail "a control byte reached stdout: $(cat -v "$WORK/out")"

# The placement library's note names the process by its comm, C1 controls (U+009B) escaped too.
if "$MPTRAIN" plan -n 1 -t 2 >/dev/null 2>&1; then
  use_program $'om\xc2\x9bp' omp_self_sized_gnu
  run_mptrain run -n 1 -t 2 --children 2 -- "$WORK/"$'om\xc2\x9bp' 2 0.2
  expect_code 0
  grep -q 'note: process [0-9]* (om??p) asked for' "$WORK/err" || fail "no escaped note: $(cat -v "$WORK/err")"
  LC_ALL=C grep -q $'[\e\x9b]' "$WORK/err" && fail "a control byte reached stderr: $(cat -v "$WORK/err")"
fi
echo PASS
