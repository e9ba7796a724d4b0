/* Threads that come and go between the doctor's samples: for SECONDS
 * (argv[1]), rounds of THREADS (argv[2]) threads that each spin for 5 ms and
 * end, joined before the next round starts (a pool started inside each call,
 * as BLIS does, or joblib's per-fit threads). The main thread only starts
 * and joins them. Prints the rounds per second. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "now.h"

static void *spin(void *unused) {
  (void)unused;
  const double end = now() + 0.005;
  volatile unsigned long sink = 0;
  while (now() < end) sink = sink + 1;
  return NULL;
}

int main(int argc, char **argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 1;
  int threads = argc > 2 ? atoi(argv[2]) : 2;
  if (threads < 1 || threads > 64) threads = 2;
  pthread_t pool[64];
  long rounds = 0;
  const double start = now();
  while (now() - start < seconds) {
    for (int i = 0; i < threads; ++i) {
      if (pthread_create(&pool[i], NULL, spin, NULL) != 0) return 1;
    }
    for (int i = 0; i < threads; ++i) pthread_join(pool[i], NULL);
    ++rounds;
  }
  printf("rounds_per_second %.1f\n", rounds / (now() - start));
  return 0;
}
