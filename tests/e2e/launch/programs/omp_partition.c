/* omp_partition ITEMS SECONDS: splits ITEMS among the threads by omp_get_max_threads(), as
 * programs do (thread t takes items t, t+n, t+2n…, so a team that is not n threads leaves items
 * undone or does them twice), in parallel regions without a num_threads clause for SECONDS, and
 * prints "partition threads N regions R wrong W": the first answer, the regions run and those
 * whose team was not the answer or whose items were not each done once. Run two at a time, so
 * that each has a busy sibling, by tests/e2e/launch/openmp_contract.sh; built with gcc and clang,
 * and with -DPER_THREAD_ARRAY under AddressSanitizer: a per-thread array sized by the answer, which
 * a larger team overflows. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "now.h"

int main(int argc, char** argv) {
  const int items = argc > 1 ? atoi(argv[1]) : 1000;
  const double seconds = argc > 2 ? atof(argv[2]) : 1.0;
  int* done = calloc((size_t)items, sizeof *done);
  if (done == NULL) return 1;
  const int first = omp_get_max_threads();
  long regions = 0, wrong = 0;
  for (const double end = now() + seconds; now() < end; ++regions) {
    const int n = omp_get_max_threads();
    int team = 0;
#ifdef PER_THREAD_ARRAY
    long* per_thread = calloc((size_t)n, sizeof *per_thread);
    if (per_thread == NULL) return 1;
#endif
    for (int i = 0; i < items; ++i) done[i] = 0;
#pragma omp parallel
    {
      const int t = omp_get_thread_num();
#pragma omp single
      team = omp_get_num_threads();
#ifdef PER_THREAD_ARRAY
      per_thread[t] += 1; /* past its end in a team larger than the answer */
#endif
      for (int i = t; i < items && t < n; i += n) done[i] += 1;  /* a thread beyond n does nothing */
      for (volatile int spin = 0; spin < 20000; ++spin) {
      }
    }
    int bad = team != n;
    for (int i = 0; i < items; ++i) bad |= done[i] != 1;
    wrong += bad;
#ifdef PER_THREAD_ARRAY
    free(per_thread);
#endif
  }
  printf("partition threads %d regions %ld wrong %ld\n", first, regions, wrong);
  free(done);
  return 0;
}
