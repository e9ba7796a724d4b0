"""blas_self_sized.py SECONDS: numpy on Debian's pthreads OpenBLAS (the
caller puts its folder on LD_LIBRARY_PATH) in a program that sizes the
pool itself, as threadpoolctl does: it finds the loaded OpenBLAS, calls its
openblas_set_num_threads through the library's handle with every CPU
(SELF_SIZED_THREADS=N: N instead, the hand fix), then
multiplies matrices for SECONDS and prints "blas threads N allowed LIST"
(openblas_get_num_threads, Cpus_allowed_list). Run by
tests/e2e/launch/program_threads.sh and bench/program_threads.sh."""
import ctypes
import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from where import allowed  # noqa: E402


def openblas():
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "openblas" in path and ".so" in path:
                return ctypes.CDLL(path)
    sys.exit("OpenBLAS is not loaded: put Debian's openblas-pthread folder on LD_LIBRARY_PATH")



seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
a = numpy.ones((256, 256))
library = openblas()
library.openblas_set_num_threads(int(os.environ.get("SELF_SIZED_THREADS", os.cpu_count())))
end = time.time() + seconds
products = 0
while time.time() < end:
    a = a @ a / 256.0
    products += 1
print(f"blas threads {library.openblas_get_num_threads()} products {products / seconds:.0f} allowed {allowed()}", flush=True)
