description="a shell loop of 12 sleeps of 0.2 s: nothing but wake-ups"
variants=(fixed)
expected_fixed=healthy  # 2.4 s of sleeps: watched enough, nothing waited
requires="nothing"
check_requires() { :; }
scope_fixed() { scope=(-- sh -c 'for i in $(seq 12); do sleep 0.2; done'); }
