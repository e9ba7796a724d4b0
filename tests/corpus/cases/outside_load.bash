description="a job sized right (N busy threads) while a process not watched keeps one CPU ~half busy: warn, never exit 3"
variants=(fixed)
expected_fixed=warning
requires="cc, c++"
check_requires() { need_command cc gcc && need_command c++ g++; }
setup() {
  burn=$(compiled burn)
  start_duty 50 "$(last_cpu)"
}
cleanup() { stop_duty; }
scope_fixed() { scope=(-- "$burn" "$N" 3); }
