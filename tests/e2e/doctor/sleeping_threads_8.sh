# A Python service with 8 threads that mostly sleep (~1.5% of a CPU) is not
# oversubscribed: wake-up latency is no evidence (the last landing said
# oversubscribed, exit 3, in 2 of 2 runs).
# ctest: serial
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/corpus/lib.bash"
[[ -x $PY ]] || skip "needs $PY (python3)"

# At the default interval and at the corpus's 0.25 s.
for interval in 0.5 0.25; do
  run_mptrain doctor --json --interval "$interval" -- "$PY" "$WORKLOADS/sleepy_threads.py" 8 10 100 3
  expect_json '.verdict == "healthy"'
  # ~1.5% of a CPU: too little to judge, and said so.
  expect_json '.measured == false and (.evidence | test("CPU-seconds"))'
  expect_code 0
done
