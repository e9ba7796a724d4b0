"""torch_children.py K [METHOD]: K torch.multiprocessing workers (the default
start method, as the seeds' Hogwild example, or METHOD: "spawn", as the
seeds' program), each doing intra-op-parallel work
for ~0.5 s and printing "child PID torch THREADS allowed LIST" (torch's
thread count and its Cpus_allowed_list). Run by tests/e2e/launch/children_torch.sh."""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_workers  # noqa: E402
from where import allowed  # noqa: E402


def work(queue):
    a = torch.ones(256, 256)
    end = time.time() + 0.5
    while time.time() < end:
        a = a @ a / 256.0
    queue.put(f"child {os.getpid()} torch {torch.get_num_threads()} allowed {allowed()}")


if __name__ == "__main__":
    count = int(sys.argv[1])
    torch.ones(64, 64) @ torch.ones(64, 64)  # the runtime starts in the parent, as in the example
    torch_workers.run(work, count, method=sys.argv[2] if len(sys.argv) > 2 else None)
