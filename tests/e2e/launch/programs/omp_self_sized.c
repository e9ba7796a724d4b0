/* omp_self_sized K SECONDS: a program that sizes its own OpenMP pool, as
 * many do: it forks K children (none with K = 0: the process works
 * itself), each calls omp_set_num_threads with every online CPU
 * (sysconf(_SC_NPROCESSORS_ONLN)) and runs short parallel regions for
 * SECONDS, then prints "worker I team N regions R allowed LIST": its team
 * size, the regions it ran per second and its Cpus_allowed_list. With
 * OMP_SELF_SIZED_CLAUSE set, the regions ask with a num_threads clause
 * instead of the call; SELF_SIZED_THREADS=N asks for N instead of every
 * CPU (the hand fix). Built with gcc -fopenmp (GNU OpenMP) and clang
 * -fopenmp (LLVM's) by the tests of tests/e2e/launch/program_threads.sh
 * and by bench/program_threads.sh. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "now.h"

/* This process's Cpus_allowed_list into `out`. */
static void allowed(char* out, size_t size) {
  snprintf(out, size, "?");
  FILE* status = fopen("/proc/self/status", "r");
  if (status == NULL) return;
  char line[4096];
  while (fgets(line, sizeof line, status) != NULL) {
    if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
      char* value = line + 18;
      while (*value == ' ' || *value == '\t') ++value;
      value[strcspn(value, "\n")] = '\0';
      snprintf(out, size, "%s", value);
    }
  }
  fclose(status);
}

static void work(int index, double seconds) {
  const char* fixed = getenv("SELF_SIZED_THREADS");
  const int every = fixed != NULL ? atoi(fixed) : (int)sysconf(_SC_NPROCESSORS_ONLN);
  const int clause = getenv("OMP_SELF_SIZED_CLAUSE") != NULL;
  if (!clause) omp_set_num_threads(every);
  long regions = 0;
  int team = 0;
  volatile double sink = 0;
  const double start = now();
  while (now() - start < seconds) {
#pragma omp parallel num_threads(clause ? every : omp_get_max_threads())
    {
      double sum = 0;
      for (int i = 0; i < 20000; ++i) sum += i * 0.5;
#pragma omp atomic
      sink += sum;
#pragma omp single
      team = omp_get_num_threads();
    }
    ++regions;
  }
  char where[4096];
  allowed(where, sizeof where);
  printf("worker %d team %d regions %.0f allowed %s\n", index, team, regions / (now() - start), where);
  fflush(stdout);
}

int main(int argc, char** argv) {
  const int k = argc > 1 ? atoi(argv[1]) : 2;
  const double seconds = argc > 2 ? atof(argv[2]) : 1.0;
  if (k == 0) {
    work(0, seconds);
    return 0;
  }
  for (int i = 0; i < k; ++i) {
    if (fork() == 0) {
      work(i, seconds);
      _exit(0);
    }
  }
  while (wait(NULL) > 0) {
  }
  return 0;
}
