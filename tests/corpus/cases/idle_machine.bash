description="the whole machine for 2 s with nothing started"
variants=(fixed)
expected_fixed=healthy
requires="nothing"
check_requires() { :; }
scope_fixed() { scope=(--duration 2); }
