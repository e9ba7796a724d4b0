"""matmul_numpy.py SECONDS: multiplies 384x384 matrices with numpy for
SECONDS seconds. With LD_LIBRARY_PATH at Debian's openblas-pthread folder,
it first checks in /proc/self/maps that the pthreads OpenBLAS got loaded.
Then prints "corpus-work PRODUCTS SECONDS" (its throughput, tests/corpus/lib.bash)."""
import os
import sys
import time

import numpy as np

seconds = float(sys.argv[1])
a = np.random.default_rng(1).random((384, 384))
b = a.T.copy()
a @ b  # loads the BLAS and starts its thread pool
want = os.environ.get("CORPUS_EXPECT_BLAS")
if want:
    with open("/proc/self/maps") as maps:
        loaded = maps.read()
    if want not in loaded:
        sys.exit(f"matmul_numpy.py: expected {want} in /proc/self/maps; BLAS libraries loaded: "
                 + ", ".join(sorted({l.split()[-1] for l in loaded.splitlines() if "blas" in l})))
start = time.monotonic()
end = start + seconds
products = 0
while time.monotonic() < end:
    a = (a @ b) * (1.0 / 384)
    products += 1
print(f"corpus-work {products} {time.monotonic() - start:.6f}", flush=True)
