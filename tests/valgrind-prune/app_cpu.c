/* The same program built without libfoo (a CPU-only job: the vendor's library is never
 * loaded). */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    char *leak = malloc(7);
    leak[0] = 1;
    leak = NULL;
    puts("0");
    return 0;
}
