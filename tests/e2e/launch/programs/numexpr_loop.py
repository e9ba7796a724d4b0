# Prints the pool numexpr evaluates on (NUMEXPR_NUM_THREADS, else the cores
# it detects, whatever the CPU quota), then evaluates an expression over 2
# million doubles for SECONDS (argv[1]) and prints the evaluations per second.
import sys
import time

import numexpr
import numpy

a = numpy.arange(2_000_000, dtype=numpy.float64)
print("numexpr_threads", numexpr.nthreads, flush=True)
start = time.monotonic()
end = start + float(sys.argv[1])
evaluations = 0
while time.monotonic() < end:
    numexpr.evaluate("sin(a) * cos(a)")
    evaluations += 1
print("evaluations_per_second %.1f" % (evaluations / (time.monotonic() - start)), flush=True)
