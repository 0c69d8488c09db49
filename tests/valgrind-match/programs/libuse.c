/* libuse: errors reached through shared libraries (C, -O2 -g).
 * libvendor is found through the rpath /tmp/vgsupp-match/lib, a directory of
 * symlinks; Valgrind reports the resolved object path
 * /tmp/vgsupp-match/opt/vendor/lib/libvendor.so.1.2.3.  libblob is stripped. */
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>
#include "vendor/vendor.h"

#define NOINLINE __attribute__((noinline))

void blob_run(char *p, int n);
void *blob_leak(void);

volatile long sink;

/* Always called with step == 4: main-program clone fill.constprop.0 */
static NOINLINE void fill(char *p, int n, int step)
{
    for (int i = 0; i <= n; i += step)
        p[i] = (char)i;                             /* Addr1 write (i == n) */
}

static NOINLINE void on_each(short *s, int n)
{
    sink = s[n];                                    /* Addr2 read, callback from libvendor */
}

/* Overwrite the stack area and caller-saved registers that might still hold
 * stale copies of leaked pointers, so the leak kinds do not depend on -O2
 * register allocation. */
static NOINLINE void scrub(void)
{
    volatile char junk[4096];
    for (unsigned i = 0; i < sizeof junk; i++)
        junk[i] = 0;
}

static NOINLINE void make_leaks(void)
{
    sink = (long)blob_leak();                       /* Leak definite, ??? frame */
    sink = (long)vendor_make_record(8);             /* Leak definite, libvendor */
    sink = (long)vendor_make_cached(5);             /* Leak reachable, libvendor */
    sink = 0;
}

int main(void)
{
    int *q = malloc(2 * sizeof(int));
    sink = q[2];                                    /* Addr4 read directly in main */
    free(q);

    sink = vendor_sum_past_end(6);

    sink = vendor_scaled_read(5);

    long *v = malloc(4 * sizeof(long));
    VALGRIND_MAKE_MEM_UNDEFINED(v, 4 * sizeof(long));
    sink = vendor_check(v, 3);
    free(v);

    char *w = malloc(32);
    sink = vendor_walk(15, w);
    free(w);

    vendor_each(on_each, 7);

    sink = vendor_peek_past_end(3);

    char *f = malloc(16);
    fill(f, 16, 4);
    fill(f, 8, 4);
    free(f);

    char *b = malloc(20);
    blob_run(b, 20);
    free(b);

    make_leaks();
    scrub();
    return 0;
}
