/* forked_pools K REGIONS [progress|rate]: forks K worker processes, as a program
 * that starts its own workers does; each sizes its OpenMP team to every
 * CPU of the machine (omp_set_num_threads(sysconf(_SC_NPROCESSORS_ONLN))),
 * as many training scripts size their pools, and runs REGIONS short
 * parallel regions of fixed work split across the team. With K teams of N
 * threads on N CPUs the teams wait at every region's barrier for threads
 * that are not running. With "progress", each worker prints "progress R"
 * after every 200 regions; with "rate", "R.R step/s" (its regions per
 * second so far) after every 50. The parent waits for the workers and exits with
 * the first failure. Built with gcc -fopenmp by the tune tests. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Work per region, split across the team (about 50 µs on one core). */
enum { work = 40000 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void worker(long regions, int progress, int rate) {
  omp_set_num_threads((int)sysconf(_SC_NPROCESSORS_ONLN));
  const double start = now();
  volatile double sink = 0;
  for (long r = 1; r <= regions; ++r) {
    double sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < work; ++i) sum += (double)(i % 7) * 0.5;
    sink += sum;
    if (progress && r % 200 == 0) {
      printf("progress %ld\n", r);
      fflush(stdout);
    }
    if (rate && r % 50 == 0) {
      printf("%.1f step/s\n", (double)r / (now() - start));
      fflush(stdout);
    }
  }
  _exit(sink > 0 ? 0 : 1);
}

int main(int argc, char** argv) {
  const int k = argc > 1 ? atoi(argv[1]) : 2;
  const long regions = argc > 2 ? atol(argv[2]) : 4000;
  const int progress = argc > 3 && strcmp(argv[3], "progress") == 0;
  const int rate = argc > 3 && strcmp(argv[3], "rate") == 0;
  for (int i = 0; i < k; ++i) {
    const pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) worker(regions, progress, rate);
  }
  int code = 0;
  for (int status; wait(&status) > 0;) {
    if (code == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) code = 1;
  }
  return code;
}
