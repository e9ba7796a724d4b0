# N PyTorch processes, each with torch.set_num_threads(N), are oversubscribed
# with a thread_pool_too_large finding naming the knob (the last landing
# missed it). Skips without python3-torch.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 90
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/corpus/lib.bash"
reason=$(need_python_module torch python3-torch) || skip "$reason"

run_mptrain doctor --json -- "$WORKLOADS/procs.sh" "$N" "$PY" "$WORKLOADS/matmul_torch.py" "$N" 3
expect_json '.verdict == "oversubscribed"'
expect_json '[.findings[] | select(.kind == "thread_pool_too_large")] | length > 0'
expect_json '[.findings[] | select(.kind == "thread_pool_too_large")][0] | .message + " " + .fix | test("set_num_threads")'
expect_code 3
# The runtimes that own the pool are named from /proc/PID/maps.
expect_json '[.processes[] | select(.pool_threads >= 2)] | length >= 2'
expect_json '[.processes[] | select(.pool_threads >= 2) | .runtimes[].name] | index("PyTorch") != null'
expect_json '[.findings[] | select(.kind == "thread_pool_too_large")][0].message | test("PyTorch")'
