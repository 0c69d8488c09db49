#include <stdlib.h>
int *p1_leak(void) { int *p = malloc(40); return p; }
int p1_bad(void) { int *p = malloc(4); int v = p[1]; free(p); return v; }
