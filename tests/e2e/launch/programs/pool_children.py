"""pool_children.py METHOD K: a multiprocessing Pool of K workers started
with METHOD (fork, spawn or forkserver), each doing numpy work on the BLAS
numpy loaded, as a program that starts its own workers does. Each worker
prints "child PID blas THREADS allowed LIST" (its BLAS library's thread
count and its Cpus_allowed_list); the parent prints "tracker PID allowed
LIST" for multiprocessing's resource tracker, a helper that does no work.
Run by tests/e2e/launch/children_python.sh."""
import multiprocessing as mp
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from where import blas_threads  # noqa: E402


def allowed(pid="self"):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("Cpus_allowed_list:"):
                return line.split()[1]
    return "?"


def work(_):
    import numpy
    a = numpy.ones((300, 300))
    end = time.time() + 0.5
    while time.time() < end:
        a = a @ a / 300.0
    return f"child {os.getpid()} blas {blas_threads()} allowed {allowed()}"


if __name__ == "__main__":
    method, count = sys.argv[1], int(sys.argv[2])
    mp.set_start_method(method)
    from multiprocessing import resource_tracker
    resource_tracker.ensure_running()
    with mp.Pool(count) as pool:
        for line in pool.map(work, range(count)):
            print(line, flush=True)
    print(f"tracker {resource_tracker._resource_tracker._pid} allowed {allowed(resource_tracker._resource_tracker._pid)}",
          flush=True)
