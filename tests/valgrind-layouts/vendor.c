/* A third-party library (declared in the test's vgsupp.yaml profile `vendor`): it leaks
 * at initialisation on its own account, and hands memory to its callers through a public
 * entry point. Both go through the same static allocator, so a rule anchored there would
 * hide what a caller leaks. Built without -g, as vendors ship. */
#include <stdlib.h>
#include <string.h>

static void *kept;

__attribute__((noinline)) static void *internal_alloc(size_t n) {
  void *p = malloc(n);
  memset(p, 0, n);
  return p;
}

/* Its own state, dropped: definitely lost, the vendor's bug. */
void vendor_init(void) {
  kept = internal_alloc(96);
  kept = NULL;
}

/* Memory for the caller, who must free it. */
void *vendor_alloc(size_t n) { return internal_alloc(n); }
