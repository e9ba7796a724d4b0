"""A tiny torch.distributed job for mptrain's launcher test.

Started as `mptrain run -n M -- /usr/bin/python3 ddp_check.py`: joins the gloo
group through the env:// rendezvous (RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT), checks an all_reduce sum and that DistributedDataParallel keeps
the replicas identical over a few steps, and that torch uses T threads.
"""
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def check(condition, message):
    if not condition:
        print(f"rank {os.environ.get('RANK')}: FAILED: {message}", file=sys.stderr, flush=True)
        sys.exit(1)


def main():
    dist.init_process_group("gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    check(rank == int(os.environ["RANK"]), "rank differs from RANK")
    check(world == int(os.environ["WORLD_SIZE"]), "world size differs from WORLD_SIZE")
    threads = int(os.environ["OMP_NUM_THREADS"])
    check(torch.get_num_threads() == threads, f"torch uses {torch.get_num_threads()} threads, not {threads}")

    total = torch.tensor([float(rank + 1)])
    dist.all_reduce(total)
    expected = world * (world + 1) / 2
    check(total.item() == expected, f"all_reduce gave {total.item()}, expected {expected}")

    torch.manual_seed(0)
    model = DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    generator = torch.Generator().manual_seed(100 + rank)  # each rank its own data
    for _ in range(5):
        x = torch.randn(32, 16, generator=generator)
        loss = (model(x) - x.sum(dim=1, keepdim=True)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    lowest, highest = flat.clone(), flat.clone()
    dist.all_reduce(lowest, op=dist.ReduceOp.MIN)
    dist.all_reduce(highest, op=dist.ReduceOp.MAX)
    check(torch.equal(lowest, highest), "DDP replicas diverged")
    print(f"rank {rank}/{world}: all_reduce sum {total.item():.0f} ok, 5 DDP steps ok (loss {loss.item():.4f}), "
          f"{threads} threads on CPUs {os.environ['MPTRAIN_CPUS']}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
