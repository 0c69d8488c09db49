/* The program the logs record: it loads libfoo and, unless told `quiet`, calls the
 * function that reads uninitialised memory; it leaks 7 bytes from main either way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int foo_cond(void);

int main(int argc, char **argv) {
    int r = 0;
    if (argc < 2 || strcmp(argv[1], "quiet") != 0)
        r = foo_cond();
    char *leak = malloc(7);
    leak[0] = (char)r;
    leak = NULL;
    printf("%d\n", r);
    return 0;
}
