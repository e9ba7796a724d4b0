/* now(): the monotonic clock in seconds, for the test programs here that
 * time their work (#include "now.h": found beside the program's source). */
#ifndef MPTRAIN_TEST_PROGRAMS_NOW_H
#define MPTRAIN_TEST_PROGRAMS_NOW_H

#include <time.h>

static inline double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#endif
