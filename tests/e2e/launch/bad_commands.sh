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

# Found and executable, but exec fails in the child: reported through the pipe.
printf '#!/nonexistent/interpreter\n' >"$WORK/bad-interpreter"
chmod 755 "$WORK/bad-interpreter"
run_mptrain run -n 2 -- "$WORK/bad-interpreter"
expect_code 1
expect_stderr "^mptrain: error: cannot run '$WORK/bad-interpreter' for rank 0 \(pid [0-9]+\): No such file or directory"
