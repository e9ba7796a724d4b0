// omp_spin: an OpenMP program (GNU OpenMP, libgomp) whose pool of
// OMP_NUM_THREADS threads computes for SECONDS seconds: parallel regions of
// about a millisecond of work per thread, one after another until time is up.
//   omp_spin SECONDS
// The corpus's job for the idle_capacity cases: its pool is exactly what
// OMP_NUM_THREADS asks for, so OMP_NUM_THREADS=1 leaves the other CPUs idle.
// Prints "corpus-work MILLIONS SECONDS": the millions of loop iterations
// its threads did, and the seconds they took (tests/corpus/lib.bash).
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: omp_spin SECONDS\n");
    return 2;
  }
  const double start = omp_get_wtime();
  const double end = start + atof(argv[1]);
  double sink = 0;
  long iterations = 0;
  while (omp_get_wtime() < end) {
#pragma omp parallel reduction(+ : sink, iterations)
    for (long i = 0; i < 400000; ++i) {
      sink += (double)(i % 7) * 1e-9;
      ++iterations;
    }
  }
  printf("%d threads, %g\n", omp_get_max_threads(), sink);
  printf("corpus-work %g %.6f\n", (double)iterations / 1e6, omp_get_wtime() - start);
  return 0;
}
