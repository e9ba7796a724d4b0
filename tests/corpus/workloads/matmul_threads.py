"""matmul_threads.py THREADS SECONDS: one process, THREADS Python threads
(a thread pool of the program's own) that each multiply 384x384 matrices
with numpy for SECONDS seconds; numpy releases the GIL inside the BLAS, so
each thread's products run on the BLAS's own pool at the same time. With
LD_LIBRARY_PATH at Debian's openblas-pthread folder it first checks in
/proc/self/maps that the pthreads OpenBLAS got loaded (CORPUS_EXPECT_BLAS).
Then prints "corpus-work PRODUCTS SECONDS" (tests/corpus/lib.bash)."""
import os
import sys
import threading
import time

import numpy as np

threads, seconds = int(sys.argv[1]), float(sys.argv[2])
a0 = np.random.default_rng(1).random((384, 384))
a0 @ a0.T  # loads the BLAS and starts its thread pool
want = os.environ.get("CORPUS_EXPECT_BLAS")
if want:
    with open("/proc/self/maps") as maps:
        if want not in maps.read():
            sys.exit(f"matmul_threads.py: expected {want} in /proc/self/maps")
done = [0] * threads
start = time.monotonic()
end = start + seconds


def multiply(slot):
    a = a0.copy()
    b = a0.T.copy()
    while time.monotonic() < end:
        a = (a @ b) * (1.0 / 384)
        done[slot] += 1


# The main thread is one of the pool (so the pool is THREADS threads, not one more).
pool = [threading.Thread(target=multiply, args=(i,)) for i in range(1, threads)]
for t in pool:
    t.start()
multiply(0)
for t in pool:
    t.join()
print(f"corpus-work {sum(done)} {time.monotonic() - start:.6f}", flush=True)
