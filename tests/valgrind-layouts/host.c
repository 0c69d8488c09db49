/* The vendor's host program: loads a plugin (argv[1]), calls its `run`, and with
 * argv[2] = "close" unloads it before exit, as hosts do. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void vendor_init(void);

int main(int argc, char **argv) {
  vendor_init();
  if (argc < 2) return 0;
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  void (*run)(void) = (void (*)(void))dlsym(h, "run");
  if (run) run();
  if (argc > 2 && strcmp(argv[2], "close") == 0) dlclose(h);
  return 0;
}
