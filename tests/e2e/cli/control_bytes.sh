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
echo PASS
