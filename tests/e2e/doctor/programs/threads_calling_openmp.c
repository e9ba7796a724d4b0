/* threads_calling_openmp THREADS SECONDS: the program's own threads, each
 * calling a threaded runtime: THREADS pthreads (as a Python thread pool
 * whose threads each call numpy would be) each run a GNU OpenMP parallel
 * loop for SECONDS seconds, and each loop gets a team of OMP_NUM_THREADS of
 * its own: THREADS × OMP_NUM_THREADS busy threads in one process. Built
 * with gcc -fopenmp by tests/e2e/doctor/nested_pools.sh. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static double seconds;

static void* call_runtime(void* unused) {
  (void)unused;
  const double end = omp_get_wtime() + seconds;
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    double spins = 0;
    while (omp_get_wtime() < end) spins += 1;
    total += spins;
  }
  printf("%g\n", total);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: threads_calling_openmp THREADS SECONDS\n");
    return 2;
  }
  const int count = atoi(argv[1]);
  seconds = atof(argv[2]);
  pthread_t threads[64];
  for (int i = 0; i < count && i < 64; ++i) pthread_create(&threads[i], NULL, call_runtime, NULL);
  for (int i = 0; i < count && i < 64; ++i) pthread_join(threads[i], NULL);
  return 0;
}
