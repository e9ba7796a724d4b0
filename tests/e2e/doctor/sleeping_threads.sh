# A Python service whose threads mostly sleep is healthy (inconclusive when
# it ran too little to judge): wake-up latency is no evidence of
# oversubscription. The last landing said oversubscribed
# (exit 3) for 8 such threads (~1.5% of a CPU, 2 of 2 runs) and for 64
# (~9%, run-delay ratio 3.35). A CI run under ASan on a loaded host said
# warning for 64: 0.03 threads queued, 66% of a demand of 0.05 CPUs; fewer
# than --min-queued-threads queued is no finding (an info note at most).
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 90
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/corpus/lib.bash"
[[ -x $PY ]] || skip "needs $PY (python3)"

# At the default interval and at the corpus's 0.25 s.
for threads in 8 64; do
  for interval in 0.5 0.25; do
    run_mptrain doctor --json --interval "$interval" -- "$PY" "$WORKLOADS/sleepy_threads.py" "$threads" 10 100 3
    expect_json '(.verdict == "healthy" and .measured) or (.verdict == "inconclusive" and (.measured | not))'
    expect_code 0
    # Their wake-ups are not working threads: (almost) nothing queued, no pool.
    expect_json '.queued_threads_avg < 0.05 and ([.processes[].pool_threads] | add) <= 1'
  done
done
# 8 threads use ~1.5% of a CPU: too little for any ratio, but watched 3 s and nothing waited: healthy,
# and the report says the job slept. Watched less than a second, it is too little, said so.
run_mptrain doctor --json -- "$PY" "$WORKLOADS/sleepy_threads.py" 8 10 100 3
expect_json '.verdict == "healthy" and .measured and .slept and .findings == []'
run_mptrain doctor --json --interval 0.2 --duration 0.6 --pid $$
expect_json '.verdict == "inconclusive" and .measured == false and (.evidence | test("4 whole sampling intervals and 1 s"))'
