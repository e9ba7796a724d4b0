# --log-dir writes one file per rank and stream instead of tagged lines; a
# directory that cannot be made or written is a clear error with exit 1
# before any worker starts.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

run_logged
for rank in 0 1; do expect_logged "$rank" out err; done
! grep -q '^\[' "$WORK/out" || fail "tagged lines printed despite --log-dir"

# A second run truncates the files of the first.
run_mptrain run -n 2 --log-dir "$WORK/logs" -- sh -c 'echo "again $RANK"'
expect_code 0
[[ $(cat "$WORK/logs/rank-1.out") == "again 1" && ! -s "$WORK/logs/rank-1.err" ]] || fail "the logs were not truncated"

# not_started PATTERN ARGS...: `mptrain run ARGS -- touch …` exits 1 with "mptrain: error: PATTERN", running nothing.
not_started() {
  local pattern=$1
  shift
  run_mptrain run "$@" -- touch "$WORK/ran"
  expect_code 1
  expect_stderr "^mptrain: error: $pattern"
  [[ ! -e "$WORK/ran" ]] || fail "a worker ran though its log could not be written"
  ! grep -q 'RANK' "$WORK/err" || fail "a summary was printed"
}

touch "$WORK/file"
not_started "--log-dir $WORK/file/logs: $WORK/file is a regular file, not a directory; give another path$" -n 2 --log-dir "$WORK/file/logs"
not_started "the log directory $WORK/file is not a directory; give --log-dir a directory \\(one that does not exist yet is created\\)" \
  -n 2 --log-dir "$WORK/file"
not_started "the log directory $WORK/file is not a directory" -n 2 --log-dir "$WORK/file" --max-restarts 1
not_started "--log-dir /dev/null/logs: /dev/null is a character device, not a directory" -n 1 --log-dir /dev/null/logs --tee 2
mkdir -p "$WORK/taken/rank-0.out"
not_started "the log file $WORK/taken/rank-0.out is a directory, not a regular file" -n 1 --log-dir "$WORK/taken"
if [[ $(id -u) != 0 ]]; then
  mkdir "$WORK/read-only"
  chmod 555 "$WORK/read-only"
  not_started "cannot create the log directory's lock file $WORK/read-only/.mptrain.lock: Permission denied" \
    -n 1 --log-dir "$WORK/read-only"
  not_started "--log-dir $WORK/read-only/logs: cannot create it: Permission denied; give a directory you can write to" -n 1 --log-dir "$WORK/read-only/logs"
fi
