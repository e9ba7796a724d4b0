/* A program whose BLAS is BLIS (Debian's libblis4-pthread, linked by path
 * as a program built against it would be): prints the pool BLIS will use
 * ("blis_threads T": bli_thread_get_num_threads, BLIS_NUM_THREADS or what the
 * program set; -1, one thread, when nothing set it), then multiplies 256 x 256
 * matrices (dgemm) for SECONDS (argv[1]) and prints "blis_running R", the
 * most threads it ran at once, main included (BLIS starts its threads inside
 * each call: a watcher thread counts /proc/self/task, less itself),
 * and the products per second.
 * With "self" (argv[2]) it first sizes BLIS to every online CPU itself, as a
 * program that manages its own BLAS does. */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "now.h"

void bli_thread_set_num_threads(int64_t n);
int64_t bli_thread_get_num_threads(void);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc);

enum { size = 256 };
static atomic_int done;
static atomic_int most;

static int tasks(void) {
  DIR *dir = opendir("/proc/self/task");
  if (!dir) return 0;
  int count = 0;
  for (struct dirent *entry; (entry = readdir(dir));) count += entry->d_name[0] != '.';
  closedir(dir);
  return count;
}

static void *watch(void *unused) {
  (void)unused;
  while (!atomic_load(&done)) {
    const int running = tasks() - 1;
    if (running > atomic_load(&most)) atomic_store(&most, running);
    usleep(2000);
  }
  return NULL;
}

int main(int argc, char **argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 0;
  if (argc > 2 && strcmp(argv[2], "self") == 0) bli_thread_set_num_threads(sysconf(_SC_NPROCESSORS_ONLN));
  printf("blis_threads %ld\n", (long)bli_thread_get_num_threads());
  fflush(stdout);
  double *a = calloc(size * size, sizeof *a), *b = calloc(size * size, sizeof *b), *c = calloc(size * size, sizeof *c);
  if (!a || !b || !c) return 1;
  for (int i = 0; i < size * size; ++i) a[i] = b[i] = (double)(i % 17) / 17.0;
  pthread_t watcher;
  if (pthread_create(&watcher, NULL, watch, NULL) != 0) return 1;
  const int n = size;
  const double one = 1, zero = 0;
  long products = 0;
  const double start = now(), end = start + seconds;
  do {
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
    ++products;
  } while (now() < end);
  const double elapsed = now() - start;
  atomic_store(&done, 1);
  pthread_join(watcher, NULL);
  printf("blis_running %d\n", atomic_load(&most));
  printf("products_per_second %.1f (%g)\n", products / elapsed, c[7]);
  return 0;
}
