// duty: keeps one CPU about PERCENT% busy: in every 10 ms period it spins
// for PERCENT% of the period and sleeps the rest, for SECONDS seconds.
//   duty PERCENT SECONDS
// The corpus's "outside load": a process the doctor does not watch.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: duty PERCENT SECONDS\n");
    return 2;
  }
  const double period = 0.010;
  const double busy = period * atof(argv[1]) / 100.0;
  const double end = now() + atof(argv[2]);
  volatile unsigned long sink = 0;
  for (double start = now(); start < end; start += period) {
    while (now() < start + busy) sink = sink + 1;
    // Sleep until the next period starts (absolute, so drift does not add up).
    double next = start + period;
    struct timespec t = {(time_t)next, (long)((next - (time_t)next) * 1e9)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
  }
  return 0;
}
