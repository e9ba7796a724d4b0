/* dlsym_constructor: a program linked with a library whose constructor looks
 * a symbol up through a library handle (as libGLdispatch does), before any
 * preloaded library's constructor has run. Built twice by tests/programs: as
 * the library (-DLIBRARY) and as the program that links it, which prints
 * "cos(0) = 1" from the pointer the constructor found. Run by
 * tests/e2e/launch/placement_library_safety.sh. */
#include <dlfcn.h>
#include <stdio.h>

#ifdef LIBRARY
double (*found_cos)(double);

__attribute__((constructor)) static void look_up(void) {
  void* libm = dlopen("libm.so.6", RTLD_NOW);
  if (libm != NULL) found_cos = (double (*)(double))dlsym(libm, "cos");
}
#else
extern double (*found_cos)(double);

int main(void) {
  if (found_cos == NULL) {
    fprintf(stderr, "dlsym_constructor: the constructor found no cos\n");
    return 1;
  }
  printf("cos(0) = %g\n", found_cos(0.0));
  return 0;
}
#endif
