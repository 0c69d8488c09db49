/* A third-party library standing in for a vendor's: it branches on memory it never
 * initialised (Memcheck: Cond), which the rules under test hide. */
#include <stdlib.h>

int foo_cond(void) {
    int *p = malloc(sizeof(int) * 4);
    int r = 0;
    if (p[1] > 2)
        r = 1;
    free(p);
    return r;
}
