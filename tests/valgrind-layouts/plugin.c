/* Layout 4: a first-party plugin that the host unloads before the leak check, so its
 * frames print as `???`. */
#include <stdlib.h>

void *volatile plugin_sink;

__attribute__((noinline)) static void plugin_leak(int n) {
  plugin_sink = malloc((size_t)n); /* BUG: definitely lost */
  plugin_sink = NULL;
}

void run(void) {
  plugin_leak(57);
  plugin_leak(58);
}
