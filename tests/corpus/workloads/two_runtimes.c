// two_runtimes: one process, two OpenMP runtimes at once. The program is
// built with gcc -fopenmp (GNU OpenMP, libgomp) and links llvm_chunks.c,
// built with clang -fopenmp (LLVM OpenMP, libomp). A second thread of the
// program calls the library's parallel regions while the main thread runs
// its own: each runtime sizes its pool from OMP_NUM_THREADS (all CPUs by
// default), so the process runs two pools side by side.
//   two_runtimes SECONDS REGION_US
// Prints "corpus-work MILLIONS SECONDS": the millions of loop iterations
// both pools did, and the seconds they took (tests/corpus/lib.bash).
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

long llvm_region(long iterations, double* sink);  // llvm_chunks.c

static double end_s;
static long per_region;

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

// The second thread: LLVM OpenMP regions until time is up.
static void* llvm_loop(void* out) {
  double sink = 0;
  long done = 0;
  while (omp_get_wtime() < end_s) done += llvm_region(per_region, &sink);
  *(long*)out = done;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: two_runtimes SECONDS REGION_US\n");
    return 2;
  }
  per_region = iterations_per(atof(argv[2]));
  const double start = omp_get_wtime();
  end_s = start + atof(argv[1]);
  long llvm_done = 0;
  pthread_t second;
  pthread_create(&second, NULL, llvm_loop, &llvm_done);
  double sink = 0;
  long iterations = 0;
  while (omp_get_wtime() < end_s) {
#pragma omp parallel reduction(+ : sink, iterations)
    {
      sink += chunk(per_region);
      iterations += per_region;
    }
  }
  pthread_join(second, NULL);
  printf("GNU %d threads, %g\n", omp_get_max_threads(), sink);
  printf("corpus-work %g %.6f\n", (double)(iterations + llvm_done) / 1e6, omp_get_wtime() - start);
  return 0;
}
