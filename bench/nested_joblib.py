"""nested_joblib.py TASKS PRODUCTS: a program as a scikit-learn-style user
writes it: joblib.Parallel(n_jobs=-1) over TASKS tasks, each PRODUCTS
matrix products (300 x 300, numpy on the BLAS it loads) in a loky worker.
Prints one JSON line: products_per_second (all products over the time from
the first task's start to the last task's end, timed inside the workers)
and seconds (the Parallel call, workers' start included).
Run by bench/nested_pools.sh."""
import json
import sys
import time

import numpy
from joblib import Parallel, delayed


def task(seed, products):
    a = numpy.random.default_rng(seed).standard_normal((300, 300))
    start = time.time()
    for _ in range(products):
        a = a @ a.T
        a /= abs(a).max()
    return start, time.time()


def main():
    tasks, products = int(sys.argv[1]), int(sys.argv[2])
    begun = time.time()
    spans = Parallel(n_jobs=-1)(delayed(task)(seed, products) for seed in range(tasks))
    ended = time.time()
    inside = max(end for _, end in spans) - min(start for start, _ in spans)
    print(json.dumps({"products_per_second": round(tasks * products / inside, 1), "seconds": round(ended - begun, 3)}))


if __name__ == "__main__":
    main()
