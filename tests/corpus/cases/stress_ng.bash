description="stress-ng --cpu N: squeezed onto one CPU with taskset (naive) vs free on N CPUs (fixed)"
variants=(naive fixed)
expected_naive=oversubscribed
expected_fixed=healthy
requires="stress-ng"
check_requires() {
  need_command stress-ng || return 1
  ((N >= 2)) || why_not "needs at least 2 usable CPUs to squeeze onto one, have $N"
}
scope_naive() { scope=(-- taskset -c "$(last_cpu)" stress-ng --quiet --metrics-brief --cpu "$N" --timeout 3); }
scope_fixed() { scope=(-- stress-ng --quiet --metrics-brief --cpu "$N" --timeout 3); }
