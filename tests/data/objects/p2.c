#include <stdlib.h>
int *p2_leak(void) { int *p = malloc(80); return p; }
int p2_bad(void) { int *p = malloc(4); int v = p[2]; free(p); return v; }
