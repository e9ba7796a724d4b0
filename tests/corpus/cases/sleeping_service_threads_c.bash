description="a C service whose threads mostly sleep (wake every 10 ms, spin 10 us): 64 threads (~10-15% of a CPU) vs 8 (~2%)"
variants=(naive fixed)
expected_naive=healthy
expected_fixed=healthy  # ~2% of a CPU for 3 s: it slept through a long watch, nothing waited
requires="cc"
check_requires() { need_command cc gcc; }
setup() { sleepy=$(compiled sleepy_threads); }
scope_naive() { scope=(-- "$sleepy" 64 10 10 3); }
scope_fixed() { scope=(-- "$sleepy" 8 10 10 3); }
