description="the whole machine for 2 s with nothing started"
variants=(fixed)
expected_fixed=healthy
requires="a quiet machine (under 15% busy when it starts)"
check_requires() { need_quiet_machine 15; }
scope_fixed() { scope=(--duration 2); }
