description="N PyTorch processes doing conv-net steps: torch.set_num_threads(N) each vs set_num_threads(1)"
variants=(naive fixed)
expected_naive=oversubscribed
expected_fixed=healthy
requires="python3-torch (not in scripts/setup.sh: skipped without it)"
check_requires() { need_python_module torch python3-torch; }
# torch imports in about 1-3 s before the 3 s loop starts.
scope_naive() { scope=(-- "$WORKLOADS/procs.sh" "$N" "$PY" "$WORKLOADS/matmul_torch.py" "$N" 3); }
scope_fixed() { scope=(-- "$WORKLOADS/procs.sh" "$N" "$PY" "$WORKLOADS/matmul_torch.py" 1 3); }
