/* omp_spawn: starts its OpenMP runtime (one parallel region), then starts
 * itself again as a child (fork and exec, as torch.multiprocessing's spawn
 * does: GNU OpenMP cannot run a parallel region in a forked copy). The child
 * prints "child allowed LIST" (its Cpus_allowed_list), then runs a region of
 * two OpenMP threads, each printing "child thread I allowed LIST" (where the
 * runtime put it), busy for about 1.5 s. Built by
 * tests/e2e/launch/openmp_inherited_binding.sh. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "now.h"

/* The calling thread's Cpus_allowed_list into `out` ("?" when unreadable). */
static void thread_allowed(char* out, size_t size) {
  char line[512];
  snprintf(out, size, "?");
  FILE* status = fopen("/proc/thread-self/status", "r");
  while (status != NULL && fgets(line, sizeof line, status) != NULL) {
    if (strncmp(line, "Cpus_allowed_list:", 18) == 0) sscanf(line + 18, "%255s", out);
  }
  if (status != NULL) fclose(status);
}

int main(int argc, char** argv) {
  if (argc < 2 || strcmp(argv[1], "child") != 0) {
    int threads = 0;
#pragma omp parallel reduction(+ : threads)
    threads += 1;
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
      execl(argv[0], argv[0], "child", (char*)NULL);
      _exit(127);
    }
    int wait_status = 0;
    waitpid(child, &wait_status, 0);
    return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 1;
  }
  {
    char line[512], allowed[256] = "?";
    FILE* status = fopen("/proc/self/status", "r");
    while (status != NULL && fgets(line, sizeof line, status) != NULL) {
      if (strncmp(line, "Cpus_allowed_list:", 18) == 0) sscanf(line + 18, "%255s", allowed);
    }
    if (status != NULL) fclose(status);
    printf("child allowed %s\n", allowed);
    fflush(stdout);
    const double end = now() + 1.5;
    /* Two threads, whatever the cap: where the runtime put each of its team is what is checked. */
#pragma omp parallel num_threads(2)
    {
      char own[256];
      thread_allowed(own, sizeof own);
#pragma omp critical
      {
        printf("child thread %d allowed %s\n", omp_get_thread_num(), own);
        fflush(stdout);
      }
      volatile double sum = 0;
      while (now() < end) sum += 1.0;
    }
  }
  return 0;
}
