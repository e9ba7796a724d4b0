# A command that cannot run is a clear error with exit 1 (a shell would give
# 127 or 126; mptrain's contract is 1 for a worker that fails to start).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

run_mptrain run -n 2 -- mptrain-no-such-command --flag
expect_code 1
expect_stderr "^mptrain: error: cannot run 'mptrain-no-such-command': not found in PATH"

printf 'echo hi\n' >"$WORK/not-executable"
chmod 644 "$WORK/not-executable"
run_mptrain run -n 2 -- "$WORK/not-executable"
expect_code 1
expect_stderr "^mptrain: error: cannot run '$WORK/not-executable': .* is not executable"

run_mptrain run -n 2 -- "$WORK"
expect_code 1
expect_stderr "^mptrain: error: cannot run '$WORK': .* is a directory"

run_mptrain run -n 2 -- "$WORK/missing"
expect_code 1
expect_stderr "^mptrain: error: cannot run '$WORK/missing': no such file"

# Found and executable, but exec fails in the child: reported through the
# pipe, naming what is missing (the script itself is there).
printf '#!/nonexistent/interpreter -x\n' >"$WORK/bad-interpreter"
chmod 755 "$WORK/bad-interpreter"
run_mptrain run -n 2 -- "$WORK/bad-interpreter"
expect_code 1
expect_stderr "^mptrain: error: cannot run '$WORK/bad-interpreter' for rank 0 \(pid [0-9]+\): its interpreter '/nonexistent/interpreter' \(from its #! line\) does not exist"

# Windows line endings: the interpreter is "/bin/sh\r".
printf '#!/bin/sh\r\necho hi\r\n' >"$WORK/crlf-script"
chmod 755 "$WORK/crlf-script"
run_mptrain run -n 1 -- "$WORK/crlf-script"
expect_code 1
expect_stderr "carriage return \(Windows line endings\).*dos2unix"

# The doctor starts its command the same way.
run_mptrain doctor -- "$WORK/bad-interpreter"
expect_code 1
expect_stderr "^mptrain: error: cannot run '$WORK/bad-interpreter'.*its interpreter '/nonexistent/interpreter'"

# A program whose dynamic loader is missing (as for one built for another
# system): the program is there, what it needs to start is not.
LC_ALL=C sed 's|/lib64/ld-linux-x86-64.so.2|/nonexistent/ld-linux.so.22|' /bin/true >"$WORK/foreign"
if grep -q 'nonexistent/ld-linux' "$WORK/foreign"; then
  chmod 755 "$WORK/foreign"
  run_mptrain run -n 1 -- "$WORK/foreign"
  expect_code 1
  expect_stderr "^mptrain: error: cannot run '$WORK/foreign' for rank 0 .*dynamic loader"
fi
