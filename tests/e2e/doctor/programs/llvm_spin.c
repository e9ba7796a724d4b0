/* llvm_spin.c: the library two_runtimes.c calls, built with clang -fopenmp
 * (LLVM's OpenMP runtime, libomp) as a shared object: a parallel loop that
 * spins for `seconds` seconds on a pool of OMP_NUM_THREADS threads. */
#include <omp.h>

double llvm_spin(double seconds) {
  const double end = omp_get_wtime() + seconds;
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    double spins = 0;
    while (omp_get_wtime() < end) spins += 1;
    total += spins;
  }
  return total;
}
