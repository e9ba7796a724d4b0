# A script under torch.distributed.elastic's @record fails: mptrain torchrun
# prints torchrun's root-cause summary from the failed rank's error file
# (rank, exit code, pid, message, traceback), then the other failures, and
# --json carries the same; a script without @record is named too, with the
# advice to add it. The temporary folder of error files is kept after a
# failure (the summary names its files) and removed after a success.
# ctest: timeout 300
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_torch
need_cpus 2
script=$TORCHRUN_DIR/record_failure.py
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"

FAIL_RANK=1 run_mptrain torchrun --nproc-per-node 2 "$script"
expect_code 1
expect_stderr "record_failure.py failed \(run id [0-9a-f]{32}\)"
root=$(sed -n '/^Root cause/,/^-----\|^=====/p' "$WORK/err")
grep -Eq "rank 1 \(local rank 1\), pid [0-9]+: exit code 1$" <<<"$root" || { cat "$WORK/err" >&2; fail "root cause is not rank 1"; }
grep -q "message:    ValueError: rank 1 found a bad batch" <<<"$root" || { cat "$WORK/err" >&2; fail "no message"; }
grep -q 'raise ValueError(f"rank {rank} found a bad batch")' <<<"$root" || { cat "$WORK/err" >&2; fail "no traceback"; }
grep -q "in fail_now" <<<"$root" || fail "the traceback lacks the failing function"
! grep -q "^Other failures" "$WORK/err" || { cat "$WORK/err" >&2; fail "rank 0, stopped by mptrain, is listed as a failure"; }
expect_stderr "^mptrain: error: rank 1 \(pid [0-9]+\) exited with code 1"
# The temporary folder is kept (the summary names the error file in it), and said so.
file=$(sed -n 's/^ *error file: *\([^ ]*error.json\).*/\1/p' "$WORK/err" | head -1)
[[ -n $file && -s $file ]] || { cat "$WORK/err" >&2; fail "the summary names no error file that is still there"; }
expect_stderr "^mptrain: kept $TMPDIR/mptrain-torchrun-[^ ]*: the failed run's error files are there"
rm -rf "${TMPDIR:?}"/*

# Two failures: rank 0 raises too, after mptrain began stopping the group; --json has both.
FAIL_RANK=0 SECOND_RANK=1 READY=$WORK/ready run_mptrain torchrun --nproc_per_node 2 --json "$script"
expect_code 1
expect_json '.root_cause.rank == 0 and .root_cause.local_rank == 0 and .root_cause.exit_code == 1'
expect_json '.root_cause.message == "ValueError: rank 0 found a bad batch"'
expect_json '.root_cause.traceback | test("Traceback .*\n(.|\n)*raise ValueError")'
expect_json '.root_cause.timestamp > 1700000000 and (.root_cause.pid > 1) and .root_cause.signal == null'
expect_json '(.failures | length) == 2 and .failures[1].rank == 1 and .failures[1].stopped'
expect_json '.failures[1].message == "RuntimeError: rank 1 failed too"'
expect_json '.run_id | test("^[0-9a-f]{32}$")'
expect_stderr "^Other failures:"

# No @record: the summary names the rank and its exit code, and says how to get the traceback.
cat >"$WORK/plain.py" <<'PY'
import os, sys
sys.exit(3 if os.environ["RANK"] == "0" else 0)
PY
run_mptrain torchrun --nproc-per-node 2 --json "$WORK/plain.py"
expect_code 3
expect_stderr "rank 0 \(local rank 0\), pid [0-9]+: exit code 3"
expect_stderr "error file: none written .*torch.distributed.elastic.multiprocessing.errors.record"
expect_json '.root_cause.rank == 0 and .root_cause.exit_code == 3 and .root_cause.message == null'

# Killed by a signal: the summary says which.
run_mptrain torchrun --nproc-per-node 1 --no-python sh -c 'kill -9 $$'
expect_code 137
expect_stderr "rank 0 \(local rank 0\), pid [0-9]+: signal 9 \(SIGKILL\)"

# A garbled error file is named, not trusted.
run_mptrain torchrun --nproc-per-node 1 --no-python sh -c 'printf "{not json" >"$TORCHELASTIC_ERROR_FILE"; exit 5'
expect_code 5
expect_stderr "error file: .*/attempt_0/0/error.json: not an error file of torch.distributed.elastic"

# Success: no summary, exit 0, nothing left in TMPDIR.
rm -rf "${TMPDIR:?}"/*
run_mptrain torchrun --nproc-per-node 2 --no-python true
expect_code 0
! grep -q "Root cause" "$WORK/err" || fail "a summary after success"
[[ -z $(ls -A "$TMPDIR") ]] || { ls -R "$TMPDIR" >&2; fail "the temporary folder was left behind"; }
