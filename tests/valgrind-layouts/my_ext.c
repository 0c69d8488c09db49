/* Layout 1: a first-party library built from two sources (this and helpers.c). */
#include <stdlib.h>

void helper_leak(void);
void *vendor_alloc(size_t n);
void *volatile sink;

__attribute__((noinline)) static int read_past(void) {
  int *a = malloc(4 * sizeof(int));
  int v = a[4]; /* BUG: invalid read */
  free(a);
  return v;
}

void run(void) {
  helper_leak();
  sink = vendor_alloc(40); /* BUG: leaked through the vendor's public entry point */
  sink = NULL;
  if (read_past() == 42) sink = (void *)1;
}
