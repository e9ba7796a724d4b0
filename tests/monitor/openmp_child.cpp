// mptrain_openmp_child: a process with the compiler's OpenMP runtime mapped
// and its pool started, for runtimes_test.cpp. It runs one parallel region,
// writes "ready\n" to stdout, then waits until its stdin reaches end of file.
#include <omp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

int main() {
  int threads = 0;
#pragma omp parallel reduction(+ : threads)
  threads += 1;
  if (threads < 1) return 1;
  std::fputs("ready\n", stdout);
  std::fflush(stdout);
  char byte = 0;
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) return 0;
  }
}
