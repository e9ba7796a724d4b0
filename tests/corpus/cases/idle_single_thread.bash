description="a one-thread CPU-bound program on all N usable CPUs (idle capacity) vs N busy threads"
variants=(naive fixed)
expected_naive=healthy
expected_fixed=healthy
# The naive job leaves N-1 CPUs idle: an idle_capacity finding, no verdict.
findings_naive="idle_capacity"
requires="c++ (the test burner)"
check_requires() { need_command c++ g++; }
scope_naive() { scope=(-- "$(compiled burn)" 1 3); }
scope_fixed() { scope=(-- "$(compiled burn)" "$N" 3); }
