"""loader_trainer.py WORKERS SECONDS: a trainer fed by WORKERS DataLoader-
like worker processes (multiprocessing, forked as torch's DataLoader does):
each worker makes batches whose transform is a numpy matrix product (a
random projection of 512x512 samples, on the BLAS's pool of that worker)
and puts a small summary of each on a bounded queue (two batches per
worker in flight, as prefetch_factor=2); the trainer takes them and does
a cheap update. For SECONDS seconds, then prints "corpus-work BATCHES
SECONDS": the batches the trainer consumed (tests/corpus/lib.bash)."""
import multiprocessing as mp
import os
import queue
import sys
import time

import numpy as np


def load(seed, batches, stop):
    rng = np.random.default_rng(seed)
    projection = rng.random((512, 512))
    while not stop.is_set():
        sample = rng.random((512, 512))
        batch = (sample @ projection) @ projection.T  # the transform: on this worker's BLAS pool
        try:
            batches.put(batch.sum(axis=0), timeout=0.1)
        except queue.Full:
            continue


def main():
    workers, seconds = int(sys.argv[1]), float(sys.argv[2])
    ctx = mp.get_context("fork")
    batches = ctx.Queue(maxsize=2 * workers)
    stop = ctx.Event()
    pool = [ctx.Process(target=load, args=(i + 1, batches, stop)) for i in range(workers)]
    for p in pool:
        p.start()
    weights = np.zeros(512)
    consumed = 0
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        try:
            batch = batches.get(timeout=0.5)
        except queue.Empty:
            continue
        weights = 0.9 * weights + 0.1 * batch / (np.abs(batch).max() + 1)  # the trainer's cheap step
        consumed += 1
    elapsed = time.monotonic() - start
    stop.set()
    for p in pool:
        p.join(timeout=5)
        if p.is_alive():
            p.terminate()
    print(f"corpus-work {consumed} {elapsed:.6f}", flush=True)
    return 0 if os.environ.get("CORPUS_LOADER_FAIL") is None else 1


if __name__ == "__main__":
    sys.exit(main())
