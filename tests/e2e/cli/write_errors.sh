# A report that cannot be written is an error (exit 1, "mptrain: error: …"),
# as GNU tools do: a full device, a closed stdout. A command that already
# failed keeps its own code. A reader that closed the pipe is no error: no
# message at all. A full stderr crashes nothing.
# ctest: timeout 120
source "$(dirname "$0")/../lib.sh"
[[ -c /dev/full ]] || skip "no /dev/full here"
synthetic=(--topology-synthetic "package:2 core:4 pu:2")

# expect_write_error CODE: the last run failed with CODE and said why on stderr.
expect_write_error() {
  expect_code "$1"
  expect_stderr '^mptrain: error: cannot write the report to stdout'
}
# to_full ARGS...: runs mptrain ARGS with stdout on /dev/full; stderr in $WORK/err, code in $code.
to_full() {
  "$MPTRAIN" "$@" >/dev/full 2>"$WORK/err"
  code=$?
}
# to_closed ARGS...: runs mptrain ARGS with stdout closed.
to_closed() {
  "$MPTRAIN" "$@" >&- 2>"$WORK/err"
  code=$?
}

to_full topo --json
expect_write_error 1
to_full topo
expect_write_error 1
to_full topo --json "${synthetic[@]}"
expect_write_error 1
to_full plan -n 2 "${synthetic[@]}"
expect_write_error 1
to_closed plan -n 2 "${synthetic[@]}"
expect_write_error 1
expect_stderr 'closed'
to_closed topo --json
expect_write_error 1
to_full plan --json -n 2 "${synthetic[@]}"
expect_write_error 1
to_full doctor --duration 0.2 --interval 100ms --fail-on never
expect_write_error 1
to_full doctor --duration 0.2 --interval 100ms --fail-on never --json
expect_write_error 1
to_full doctor --fail-on never --json -- true
expect_write_error 1
to_full run -n 1 --json -- true
expect_write_error 1
# The command's own failure is kept, and the write error still said.
to_full run -n 1 --json -- sh -c 'exit 3'
expect_write_error 3
to_full doctor --json -- sh -c 'exit 5'
expect_write_error 5

# --help and --version go to stdout too.
to_full topo --help
expect_write_error 1
to_full --version
expect_write_error 1

# A reader that stops early: no message; exit 0 or SIGPIPE's 141.
"$MPTRAIN" topo 2>"$WORK/err" | head -c1 >/dev/null
code=${PIPESTATUS[0]}
[[ "$code" == 0 || "$code" == 141 ]] || fail "topo | head -c1 exited $code"
[[ ! -s "$WORK/err" ]] || { cat "$WORK/err" >&2; fail "topo | head -c1 printed on stderr"; }

# A pipe whose reader has already gone, with SIGPIPE ignored (as under some
# supervisors): the write fails with EPIPE, quietly.
command -v python3 >/dev/null || skip "no python3 for the closed-pipe check"
python3 - "$MPTRAIN" "$WORK/err" <<'PY' || fail "a closed pipe was reported (see above)"
import os, subprocess, sys
for args in (["topo", "--json"], ["plan", "-n", "2", "--topology-synthetic", "package:2 core:4 pu:2"]):
    read_end, write_end = os.pipe()
    os.close(read_end)
    with open(sys.argv[2], "wb") as err:
        code = subprocess.run([sys.argv[1]] + args, stdout=write_end, stderr=err, restore_signals=False).returncode
    os.close(write_end)
    message = open(sys.argv[2], "rb").read()
    if message or code not in (0, 141):
        sys.stderr.write(f"{args}: exit {code}, stderr {message!r}\n")
        sys.exit(1)
PY

# A full stderr: the usage error is still exit 2, not a crash.
"$MPTRAIN" plan --no-such-option >/dev/null 2>/dev/full
code=$?
expect_code 2
"$MPTRAIN" topo --json >/dev/null 2>/dev/full
code=$?
expect_code 0
