description="a Python service whose threads mostly sleep (wake every 10 ms, a little work): 64 threads (~5-10% CPU) vs 8"
variants=(naive fixed)
expected_naive=healthy
expected_fixed=healthy  # ~1.5% of a CPU for 3 s: it slept through a long watch, nothing waited
requires="python3"
check_requires() { [[ -x $PY ]] || why_not "needs $PY"; }
scope_naive() { scope=(-- "$PY" "$WORKLOADS/sleepy_threads.py" 64 10 100 3); }
scope_fixed() { scope=(-- "$PY" "$WORKLOADS/sleepy_threads.py" 8 10 100 3); }
