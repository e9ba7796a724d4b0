/* A program with a pthreads pool that reads no OMP_PLACES:
 *   thread_pool BUSY SECONDS [own]
 * starts BUSY threads that spin for SECONDS, one thread that sleeps, and
 * (with "own") one more spinning thread that first binds itself to the last
 * CPU it may use (pthread_setaffinity_np: the program's own call). Before
 * leaving, each thread prints the CPUs it is allowed on:
 *   busy I ALLOWED | sleeper ALLOWED | own ALLOWED
 * and the program prints "own chose CPU" with the CPU it bound to. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "now.h"

static double seconds_to_run;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

/* Prints "WHAT ALLOWED" with the calling thread's Cpus_allowed_list. */
static void report(const char* what) {
  char path[64], line[4096], allowed[4096] = "?";
  snprintf(path, sizeof path, "/proc/thread-self/status");
  FILE* status = fopen(path, "r");
  while (status != NULL && fgets(line, sizeof line, status) != NULL) {
    if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
      sscanf(line + 18, " %4095s", allowed);
      break;
    }
  }
  if (status != NULL) fclose(status);
  pthread_mutex_lock(&print_lock);
  printf("%s %s\n", what, allowed);
  fflush(stdout);
  pthread_mutex_unlock(&print_lock);
}

static void spin(void) {
  const double end = now() + seconds_to_run;
  volatile double x = 1;
  while (now() < end) {
    for (int i = 0; i < 100000; ++i) x = x * 1.0000001 + 1e-9;
  }
}

static void* busy(void* index) {
  spin();
  char what[32];
  snprintf(what, sizeof what, "busy %d", (int)(long)index);
  report(what);
  return NULL;
}

static void* sleeper(void* unused) {
  (void)unused;
  struct timespec nap = {0, 50 * 1000 * 1000};
  for (double end = now() + seconds_to_run; now() < end;) nanosleep(&nap, NULL);
  report("sleeper");
  return NULL;
}

static void* own(void* unused) {
  (void)unused;
  cpu_set_t set;
  sched_getaffinity(0, sizeof set, &set);
  int last = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) last = cpu;
  }
  CPU_ZERO(&set);
  CPU_SET(last, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  printf("own chose %d\n", last);
  fflush(stdout);
  spin();
  report("own");
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: thread_pool BUSY SECONDS [own]\n");
    return 2;
  }
  const int count = atoi(argv[1]);
  seconds_to_run = atof(argv[2]);
  const int with_own = argc > 3 && strcmp(argv[3], "own") == 0;
  pthread_t threads[256];
  int started = 0;
  if (with_own) pthread_create(&threads[started++], NULL, own, NULL);
  for (long i = 0; i < count && started < 255; ++i) pthread_create(&threads[started++], NULL, busy, (void*)i);
  pthread_create(&threads[started++], NULL, sleeper, NULL);
  for (int i = 0; i < started; ++i) pthread_join(threads[i], NULL);
  return 0;
}
