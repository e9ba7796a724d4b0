/* two_runtimes SECONDS: one process, two OpenMP runtimes. This program is
 * built with gcc -fopenmp (GNU OpenMP, libgomp) and calls llvm_spin() of
 * llvm_spin.c, a library built with clang -fopenmp (LLVM OpenMP, libomp):
 * for SECONDS seconds it runs its own parallel loop while a second thread
 * runs the library's, each runtime with a pool of OMP_NUM_THREADS threads,
 * as a program linking a library built by another compiler does. Built by
 * tests/e2e/doctor/two_openmp_runtimes.sh. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

double llvm_spin(double seconds);

static double seconds;

static void* run_library(void* unused) {
  (void)unused;
  printf("library %g\n", llvm_spin(seconds));
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: two_runtimes SECONDS\n");
    return 2;
  }
  seconds = atof(argv[1]);
  pthread_t library;
  if (pthread_create(&library, NULL, run_library, NULL) != 0) return 1;
  const double end = omp_get_wtime() + seconds;
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    double spins = 0;
    while (omp_get_wtime() < end) spins += 1;
    total += spins;
  }
  pthread_join(library, NULL);
  printf("program %g\n", total);
  return 0;
}
