// sleepy_threads: a service's idle pool in C: THREADS threads that each wake
// every PERIOD_MS milliseconds, spin for WORK_US microseconds, and sleep
// again, for SECONDS seconds.
//   sleepy_threads THREADS PERIOD_MS WORK_US SECONDS
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double period_s, work_s, end_s;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void* serve(void* unused) {
  (void)unused;
  volatile unsigned long sink = 0;
  while (now() < end_s) {
    for (double stop = now() + work_s; now() < stop;) sink = sink + 1;
    struct timespec t = {0, (long)(period_s * 1e9)};
    nanosleep(&t, NULL);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: sleepy_threads THREADS PERIOD_MS WORK_US SECONDS\n");
    return 2;
  }
  int threads = atoi(argv[1]);
  period_s = atof(argv[2]) / 1e3;
  work_s = atof(argv[3]) / 1e6;
  end_s = now() + atof(argv[4]);
  pthread_t* pool = calloc(threads, sizeof *pool);
  for (int i = 0; i < threads; ++i) pthread_create(&pool[i], NULL, serve, NULL);
  for (int i = 0; i < threads; ++i) pthread_join(pool[i], NULL);
  free(pool);
  return 0;
}
