/* omp_where: each OpenMP thread spins a moment (so the scheduler has placed
 * it), then prints one line "omp THREAD cpu CPU allowed LIST": its OpenMP
 * thread number, the CPU it runs on (sched_getcpu) and its task's
 * Cpus_allowed_list. Built by tests/e2e/launch/openmp_placement.sh with each
 * OpenMP runtime at hand. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void allowed_list(char* out, size_t size) {
  char path[64], line[512];
  snprintf(out, size, "?");
  snprintf(path, sizeof path, "/proc/self/task/%ld/status", (long)syscall(SYS_gettid));
  FILE* status = fopen(path, "r");
  if (status == NULL) return;
  while (fgets(line, sizeof line, status) != NULL) {
    if (strncmp(line, "Cpus_allowed_list:", 18) == 0) sscanf(line + 18, "%255s", out);
  }
  fclose(status);
}

int main(void) {
#pragma omp parallel
  {
    volatile double sum = 0;
    for (long i = 0; i < 20000000; ++i) sum += (double)i;
    char allowed[256];
    allowed_list(allowed, sizeof allowed);
#pragma omp critical
    printf("omp %d cpu %d allowed %s\n", omp_get_thread_num(), sched_getcpu(), allowed);
  }
  return 0;
}
