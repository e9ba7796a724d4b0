# A rank that fails because the python3 mptrain ran (the first in PATH, as
# torchrun would use its own) cannot import torch: the error names that
# interpreter, which others here import torch (checked only then), and
# MPTRAIN_PYTHON to choose one. A pyenv-like shim stands in for it here.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
mkdir -p "$WORK/bin"
cat >"$WORK/bin/python3" <<'SHIM'
#!/bin/sh
# A python3 without torch: every script and every `import torch` fails as Python would.
echo "Traceback (most recent call last):" >&2
echo "ModuleNotFoundError: No module named 'torch'" >&2
exit 1
SHIM
chmod +x "$WORK/bin/python3"
echo 'import torch' >"$WORK/train.py"

PATH="$WORK/bin:$PATH" run_mptrain torchrun --nproc-per-node 1 "$WORK/train.py"
expect_code 1
expect_stderr "rank 0 ran python3 \($WORK/bin/python3\), which cannot import torch"
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  expect_stderr "/usr/bin/python3.* can: run with MPTRAIN_PYTHON="
else
  expect_stderr "no other python3 in PATH, /usr/bin or /usr/local/bin imports it either"
fi
# A failure of another kind gets no such line; a failure that wrote no
# file leaves no run folder behind (its lock file is not the run's output).
echo 'raise SystemExit(3)' >"$WORK/fail.py"
mkdir "$WORK/tmp"
TMPDIR="$WORK/tmp" MPTRAIN_PYTHON=/usr/bin/python3 run_mptrain torchrun --nproc-per-node 1 "$WORK/fail.py"
expect_code 3
! grep -q "cannot import" "$WORK/err" || fail "a plain failure was blamed on the interpreter"
! grep -q "mptrain: kept" "$WORK/err" || fail "a run folder holding only its lock was kept"
[[ -z $(ls -A "$WORK/tmp") ]] || fail "left behind in TMPDIR: $(ls -A "$WORK/tmp")"
exit 0
