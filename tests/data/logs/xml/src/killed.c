/* Reports an error, then waits to be killed: Valgrind never closes its XML document. */
#include <stdlib.h>
#include <unistd.h>
int main(void) {
    int *p = malloc(4 * sizeof *p);
    int r = p[4];          /* invalid read of size 4 */
    free(p);
    sleep(30);
    return r;
}
