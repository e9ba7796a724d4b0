"""matmul_torch.py THREADS SECONDS: torch.set_num_threads(THREADS), then a
small conv net's forward and backward step on random data for SECONDS seconds;
then prints "corpus-work STEPS SECONDS" (its throughput, tests/corpus/lib.bash)."""
import sys
import time

import torch

threads, seconds = int(sys.argv[1]), float(sys.argv[2])
torch.set_num_threads(threads)
torch.manual_seed(1)
net = torch.nn.Sequential(
    torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Flatten(), torch.nn.Linear(32 * 7 * 7, 10))
x = torch.randn(64, 1, 28, 28)
y = torch.randint(0, 10, (64,))
start = time.monotonic()
end = start + seconds
steps = 0
while time.monotonic() < end:
    net.zero_grad()
    torch.nn.functional.cross_entropy(net(x), y).backward()
    steps += 1
print(f"corpus-work {steps} {time.monotonic() - start:.6f}", flush=True)
