# A Python service with 64 threads that mostly sleep (~9% of a CPU) is not
# oversubscribed (the last landing said it was).
# ctest: serial
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/corpus/lib.bash"
[[ -x $PY ]] || skip "needs $PY (python3)"

# At the default interval and at the corpus's 0.25 s.
for interval in 0.5 0.25; do
  run_mptrain doctor --json --interval "$interval" -- "$PY" "$WORKLOADS/sleepy_threads.py" 64 10 100 3
  expect_json '.verdict == "healthy"'
  expect_code 0
done
