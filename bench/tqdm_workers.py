#!/usr/bin/python3
"""A multi-process program with one tqdm bar: the parent forks --workers
processes (multiprocessing), each multiplying numpy matrices (OpenBLAS sizes
its pool to every CPU unless told otherwise) and reporting each finished
step on a queue; the parent draws one tqdm bar of the steps of all workers
on stderr. Runs until stopped (or --steps in all)."""
import argparse
import multiprocessing as mp
import os

import numpy as np
from tqdm import tqdm


def work(queue, size, steps):
    rng = np.random.default_rng(os.getpid())
    a = rng.standard_normal((size, size))
    b = rng.standard_normal((size, size))
    for _ in range(steps):
        a = np.tanh(a @ b)
        queue.put(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--size", type=int, default=160)
    p.add_argument("--steps", type=int, default=10**9, help="steps per worker")
    args = p.parse_args()
    queue = mp.get_context("fork").Queue()
    workers = [mp.get_context("fork").Process(target=work, args=(queue, args.size, args.steps))
               for _ in range(args.workers)]
    for w in workers:
        w.start()
    with tqdm(total=args.workers * args.steps, mininterval=0.2) as bar:
        for _ in range(args.workers * args.steps):
            queue.get()
            bar.update(1)
    for w in workers:
        w.join()


if __name__ == "__main__":
    main()
