#include <dlfcn.h>
#include <stdio.h>
int main(void) {
  void *h = dlopen("/tmp/dl/libp1.so", RTLD_NOW);
  int *(*l1)(void) = dlsym(h, "p1_leak"); int (*b1)(void) = dlsym(h, "p1_bad");
  volatile int *keep1 = l1(); b1();
  dlclose(h);
  void *h2 = dlopen("/tmp/dl/libp2.so", RTLD_NOW);
  int *(*l2)(void) = dlsym(h2, "p2_leak"); int (*b2)(void) = dlsym(h2, "p2_bad");
  volatile int *keep2 = l2(); b2();
  (void)keep1; (void)keep2;
  return 0;
}
