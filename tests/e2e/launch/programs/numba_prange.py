# Prints the pool numba's parallel loops run on (NUMBA_NUM_THREADS, else
# the machine's CPU count), then runs prange loops for SECONDS (argv[1])
# and prints the loops per second.
import sys
import time

import numba
import numpy as np


@numba.njit(parallel=True, cache=True)
def work(a):
    total = 0.0
    for i in numba.prange(a.shape[0]):
        total += np.sin(a[i]) * np.cos(a[i])
    return total


print("numba_threads", numba.get_num_threads(), flush=True)
data = np.arange(2_000_000, dtype=np.float64)
work(data)
start = time.monotonic()
end = start + float(sys.argv[1])
loops = 0
while time.monotonic() < end:
    work(data)
    loops += 1
print("loops_per_second %.1f" % (loops / (time.monotonic() - start)), flush=True)
