/* Layout 5: a program built from prog.c and lib.c into my_lib-based objects; the test
 * gives first-party globs that match none of its frames. */
#include <stdlib.h>

void lib_leak(void);
void *volatile prog_sink;

void run(void) {
  prog_sink = malloc(19); /* BUG: definitely lost */
  prog_sink = NULL;
  lib_leak();
}
