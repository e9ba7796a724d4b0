// llvm_chunks: a library built with clang -fopenmp, so its parallel
// regions run on LLVM's OpenMP runtime (libomp), whatever runtime the
// program that calls it uses. Each call is one parallel region in which
// every thread does `iterations` of the same work as omp_chunks.c.
#include <omp.h>

// One parallel region of `iterations` per thread; returns the iterations done by all threads.
long llvm_region(long iterations, double* sink) {
  double s = 0;
  long done = 0;
#pragma omp parallel reduction(+ : s, done)
  {
    for (long i = 0; i < iterations; ++i) s += (double)(i % 7) * 1e-9;
    done += iterations;
  }
  *sink += s;
  return done;
}
