// omp_chunks: an OpenMP program (GNU OpenMP, libgomp) whose pool of
// OMP_NUM_THREADS threads computes independent chunks between barriers:
// each parallel region gives every thread about REGION_US microseconds of
// work (measured on one thread at start), then all meet at its end.
//   omp_chunks SECONDS REGION_US
// REGION_US 50000 is a pool that rarely meets (a barrier every 50 ms);
// 300 is one that meets every few hundred microseconds.
// Prints "corpus-work MILLIONS SECONDS": the millions of loop iterations
// its threads did, and the seconds they took (tests/corpus/lib.bash).
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

// The work of one thread's chunk: `iterations` dependent additions.
static double chunk(long iterations) {
  double sink = 0;
  for (long i = 0; i < iterations; ++i) sink += (double)(i % 7) * 1e-9;
  return sink;
}

// Iterations one thread does in `us` microseconds, timed over 20 ms.
static long iterations_per(double us) {
  const long probe = 1000000;
  double start = omp_get_wtime(), sink = 0;
  long done = 0;
  while (omp_get_wtime() - start < 0.02) {
    sink += chunk(probe);
    done += probe;
  }
  const double per_us = done / ((omp_get_wtime() - start) * 1e6);
  return sink < 0 ? 1 : (long)(per_us * us) + 1;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: omp_chunks SECONDS REGION_US\n");
    return 2;
  }
  const long per_region = iterations_per(atof(argv[2]));
  const double start = omp_get_wtime();
  const double end = start + atof(argv[1]);
  double sink = 0;
  long iterations = 0;
  while (omp_get_wtime() < end) {
#pragma omp parallel reduction(+ : sink, iterations)
    {
      sink += chunk(per_region);
      iterations += per_region;
    }
  }
  printf("%d threads, %g\n", omp_get_max_threads(), sink);
  printf("corpus-work %g %.6f\n", (double)iterations / 1e6, omp_get_wtime() - start);
  return 0;
}
