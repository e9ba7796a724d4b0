# torchrun's log layout and console choices: --log-dir DIR holds
# DIR/RUNID_XXXXXX/attempt_A/LOCALRANK/{stdout.log,stderr.log,error.json},
# -r/--redirects sends streams only there, -t/--tee there and to the console
# (numbers and per-rank maps), --local-ranks-filter shows only some ranks on
# the console while their files stay whole.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
talk='echo "out of $RANK"; echo "err of $RANK" >&2'

# --log-dir alone: the folders and error files, the streams on the console only (torchrun's -r 0 -t 0).
run_mptrain torchrun --nproc-per-node 2 --rdzv-id job1 --log-dir "$WORK/logs" --no-python sh -c "$talk"
expect_code 0
run_dir=$(echo "$WORK"/logs/job1_*)
[[ -d "$run_dir/attempt_0/0" && -d "$run_dir/attempt_0/1" ]] || { find "$WORK/logs" >&2; fail "no attempt_0/R folders"; }
[[ ! -e "$run_dir/attempt_0/0/stdout.log" ]] || fail "stdout.log written without -r/-t"
grep -qx "\[1\] out of 1" "$WORK/out" || fail "the console lacks rank 1's output"

# -r 3: both streams only to the files.
run_mptrain torchrun --nproc_per_node=2 --rdzv_id=job2 --log_dir="$WORK/logs" -r 3 --no-python sh -c "$talk"
expect_code 0
run_dir=$(echo "$WORK"/logs/job2_*)
for rank in 0 1; do
  [[ $(cat "$run_dir/attempt_0/$rank/stdout.log") == "out of $rank" ]] || fail "rank $rank's stdout.log"
  [[ $(cat "$run_dir/attempt_0/$rank/stderr.log") == "err of $rank" ]] || fail "rank $rank's stderr.log"
done
! grep -q "of [01]" "$WORK/out" "$WORK/err" || { cat "$WORK/out" "$WORK/err" >&2; fail "redirected lines reached the console"; }

# --tee per rank: rank 0's stdout to its file and the console, rank 1's stderr the same; -r2 written joined.
run_mptrain torchrun --nproc-per-node 2 --rdzv-id job3 --log-dir "$WORK/logs" -t 0:1,1:2 --no-python sh -c "$talk"
expect_code 0
run_dir=$(echo "$WORK"/logs/job3_*)
[[ $(cat "$run_dir/attempt_0/0/stdout.log") == "out of 0" && ! -e "$run_dir/attempt_0/0/stderr.log" ]] || fail "tee 0:1"
[[ $(cat "$run_dir/attempt_0/1/stderr.log") == "err of 1" && ! -e "$run_dir/attempt_0/1/stdout.log" ]] || fail "tee 1:2"
grep -qx "\[0\] out of 0" "$WORK/out" && grep -qx "\[1\] err of 1" "$WORK/err" || fail "teed lines missing on the console"

# Restarts: one folder per attempt.
run_mptrain torchrun --nproc-per-node 1 --rdzv-id job4 --log-dir "$WORK/logs" -r2 --max-restarts 1 --no-python sh -c \
  'echo "attempt $TORCHELASTIC_RESTART_COUNT" >&2; exit 6'
expect_code 6
run_dir=$(echo "$WORK"/logs/job4_*)
[[ $(cat "$run_dir/attempt_0/0/stderr.log") == "attempt 0" && $(cat "$run_dir/attempt_1/0/stderr.log") == "attempt 1" ]] ||
  { find "$run_dir" >&2; fail "attempt folders"; }

# A run id with slashes (or dots) names a folder inside --log-dir, never one elsewhere.
run_mptrain torchrun --nproc-per-node 1 --rdzv-id ../a/b --log-dir "$WORK/logs" -r 1 --no-python sh -c "$talk"
expect_code 0
[[ $(cat "$WORK"/logs/.._a_b_*/attempt_0/0/stdout.log) == "out of 0" ]] || { find "$WORK" >&2; fail "--rdzv-id ../a/b: its folder"; }

# -r without --log-dir: torchrun writes to a temporary folder; mptrain keeps it and says where.
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"
run_mptrain torchrun --nproc-per-node 1 -r 1 --no-python sh -c "$talk"
expect_code 0
expect_stderr "no --log-dir: the workers' log files are in $TMPDIR/mptrain-torchrun-"
[[ $(cat "$TMPDIR"/mptrain-torchrun-*/attempt_0/0/stdout.log) == "out of 0" ]] || fail "the kept log file"

# --local-ranks-filter: only rank 1 on the console; rank 0's files still whole.
run_mptrain torchrun --nproc-per-node 2 --local-ranks-filter 1 --rdzv-id job5 --log-dir "$WORK/logs" -t 3 \
  --no-python sh -c "$talk"
expect_code 0
! grep -q "^\[0\]" "$WORK/out" "$WORK/err" || { cat "$WORK/out" "$WORK/err" >&2; fail "rank 0 on the console"; }
grep -qx "\[1\] out of 1" "$WORK/out" || fail "rank 1 missing from the console"
run_dir=$(echo "$WORK"/logs/job5_*)
[[ $(cat "$run_dir/attempt_0/0/stdout.log") == "out of 0" ]] || fail "the filter cut rank 0's log file"
run_mptrain torchrun --nproc_per_node 2 --local_ranks_filter=0,1 --no-python sh -c "$talk"
[[ $(grep -c "out of" "$WORK/out") == 2 ]] || fail "--local_ranks_filter=0,1 hid a rank"
run_mptrain torchrun --nproc-per-node 2 --local-ranks-filter 2 --no-python true
expect_usage_error "--local-ranks-filter 2: '2' is not a local rank of this node \(they are 0 to 1\)"

# A --log-dir that is a file.
: >"$WORK/file"
run_mptrain torchrun --nproc-per-node 1 --log-dir "$WORK/file" --no-python true
expect_code 1
expect_stderr "^mptrain: error: the log directory $WORK/file is not a directory; give --log-dir a directory"
