/* Layout 5: the second source. */
#include <stdlib.h>

void *volatile lib_sink;

void lib_leak(void) {
  lib_sink = malloc(23); /* BUG: definitely lost */
  lib_sink = NULL;
}
