description="the whole machine for 2 s with nothing started"
variants=(fixed)
expected_fixed=healthy
also_fixed=inconclusive  # a quiet machine may run too little in 2 s to judge
requires="a quiet machine (under 15% busy when it starts)"
check_requires() { need_quiet_machine 15; }
scope_fixed() { scope=(--duration 2); }
