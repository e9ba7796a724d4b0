/* omp_children K [again]: starts its OpenMP runtime (one parallel region),
 * then forks K children without exec, as a program that starts its own
 * workers does. Each child runs a parallel region busy for ~0.3 s and
 * prints "child I team N allowed LIST threads LIST;LIST;…": its team size,
 * its Cpus_allowed_list and each team thread's allowed CPUs. With "again",
 * once the K children have exited it forks one more, "child K", which must
 * find a slice free again. Built with clang -fopenmp (LLVM's OpenMP, which
 * runs parallel regions in a forked copy; GNU OpenMP hangs there when the
 * parent had a team) by tests/e2e/launch/children_openmp.sh. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "now.h"

/* The CPUs of this thread's affinity as a list "0,1" into `out`. */
static void allowed(char* out, size_t size) {
  cpu_set_t set;
  out[0] = '\0';
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  size_t used = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && used + 8 < size; ++cpu) {
    if (CPU_ISSET(cpu, &set)) used += (size_t)snprintf(out + used, size - used, "%s%d", used ? "," : "", cpu);
  }
}

static void child(int index) {
  char process[256], threads[64][256];
  allowed(process, sizeof process);
  int team = 0;
  const char* seconds = getenv("OMP_CHILDREN_SECONDS");
  const double end = now() + (seconds != NULL ? atof(seconds) : 0.3);
#pragma omp parallel reduction(+ : team)
  {
    team += 1;
    volatile double sum = 0;
    while (now() < end) sum += 1.0;
    if (omp_get_thread_num() < 64) allowed(threads[omp_get_thread_num()], sizeof threads[0]);
  }
  printf("child %d team %d allowed %s threads", index, team, process);
  for (int t = 0; t < team && t < 64; ++t) printf("%s%s", t ? ";" : " ", threads[t]);
  printf("\n");
  fflush(stdout);
  _exit(0);
}

int main(int argc, char** argv) {
  const int k = argc > 1 ? atoi(argv[1]) : 2;
  int team = 0;
#pragma omp parallel reduction(+ : team)
  team += 1;
  printf("parent team %d\n", team);
  fflush(stdout);
  for (int i = 0; i < k; ++i) {
    if (fork() == 0) child(i);
  }
  while (wait(NULL) > 0) {
  }
  if (argc > 2 && strcmp(argv[2], "again") == 0) {
    if (fork() == 0) child(k);
    while (wait(NULL) > 0) {
    }
  }
  return 0;
}
