/* Layout 1: the library's second source, whose name no glob of the test names.
 *
 * The leak below sits on line 13, where the issue found it hidden by a rule.
 */
#include <stdlib.h>

void *volatile helper_sink;

void helper_leak(void);

void helper_leak(void) {
  /* one block, and its only pointer dropped */
  helper_sink = malloc(33); /* BUG: definitely lost */
  helper_sink = NULL;
}
