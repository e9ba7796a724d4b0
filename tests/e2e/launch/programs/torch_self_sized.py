"""torch_self_sized.py K SECONDS: K torch.multiprocessing workers in the
style of pytorch/examples' mnist_hogwild, each sizing its own pool with
torch.set_num_threads(os.cpu_count()) and doing intra-op-parallel work for
SECONDS (SELF_SIZED_THREADS=N: N instead, the hand fix); each prints "worker PID torch THREADS steps S allowed LIST" (its
torch thread count, matrix products per second, Cpus_allowed_list). Run by
tests/e2e/launch/program_threads.sh and bench/program_threads.sh."""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_workers  # noqa: E402
from where import allowed  # noqa: E402


def work(queue, seconds):
    torch.set_num_threads(int(os.environ.get("SELF_SIZED_THREADS", os.cpu_count())))
    a = torch.ones(192, 192)
    steps = 0
    end = time.time() + seconds
    while time.time() < end:
        a = a @ a / 192.0
        steps += 1
    queue.put(f"worker {os.getpid()} torch {torch.get_num_threads()} steps {steps / seconds:.0f} allowed {allowed()}")


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    torch_workers.run(work, count, seconds)
