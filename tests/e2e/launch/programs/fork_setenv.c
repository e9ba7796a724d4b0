/* fork_setenv N: a thread calls setenv and getenv in a loop while the main
 * thread forks N children, each of which exits at once; prints "forked N"
 * when every child was reaped. A library that calls setenv (or anything
 * that takes glibc's environment lock) between fork and the program's own
 * code deadlocks some of these children. Built by
 * tests/e2e/launch/placement_library_safety.sh. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int done = 0;

static void* churn(void* unused) {
  (void)unused;
  char value[32];
  for (unsigned long i = 0; !done; ++i) {
    snprintf(value, sizeof value, "%lu", i);
    setenv("FORK_SETENV_CHURN", value, 1);
    (void)getenv("FORK_SETENV_CHURN");
  }
  return NULL;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 200;
  pthread_t thread;
  pthread_create(&thread, NULL, churn, NULL);
  for (int i = 0; i < n; ++i) {
    pid_t child = fork();
    if (child == 0) _exit(0);
    if (child < 0) return 1;
    waitpid(child, NULL, 0);
  }
  done = 1;
  pthread_join(thread, NULL);
  printf("forked %d\n", n);
  return 0;
}
