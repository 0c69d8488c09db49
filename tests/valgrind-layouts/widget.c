/* Layout 3: a first-party source under widget/, compiled into libgui.so (a name the
 * glob does not give), recorded as text and as XML. */
#include <stdlib.h>

void *volatile widget_sink;

__attribute__((noinline)) static int uninit_cond(void) {
  int *p = malloc(sizeof(int));
  int r = 0;
  if (*p > 3) r = 1; /* BUG: conditional jump on an uninitialised value */
  free(p);
  return r;
}

void run(void) {
  widget_sink = malloc(72); /* BUG: definitely lost */
  widget_sink = NULL;
  if (uninit_cond()) widget_sink = (void *)2;
}
