/* libvendor, compiled with -O2 -g: GCC clones (.isra.0, .constprop.0,
 * .part.0), an inlined always_inline helper, and recursion. */
#include <stdlib.h>
#include <string.h>
#include "vendor.h"

#define NOINLINE __attribute__((noinline))

volatile long vendor_sink;
void *vendor_cache;                 /* exported, so the store is kept */

struct cfg {
    long pad[6];
    int *data;
    int n;
};

/* IPA-SRA turns the struct pointer into its two used fields: sum_cfg.isra.0 */
static NOINLINE int sum_cfg(const struct cfg *c)
{
    int s = 0;
    for (int i = 0; i <= c->n; i++)
        s += c->data[i];                            /* Addr4 read (i == n) */
    return s;
}

int vendor_sum_past_end(int n)
{
    struct cfg c;
    memset(&c, 0, sizeof c);
    c.data = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        c.data[i] = i;
    c.n = n;
    int s = sum_cfg(&c);
    free(c.data);
    return s;
}

/* Always called with scale == 3: IPA-CP clone scaled.constprop.0 */
static NOINLINE long scaled(const long *p, int i, int scale)
{
    return p[i] * scale;                            /* Addr8 read */
}

int vendor_scaled_read(int n)
{
    long *p = malloc(n * sizeof(long));
    memset(p, 0, n * sizeof(long));
    long r = scaled(p, 1, 3) + scaled(p, n, 3);
    free(p);
    return (int)r;
}

/* Cheap, likely guard + big body: partial inlining (ipa-split) inlines the
 * guard into vendor_check and splits the body off as check_slow.part.0. */
static long check_slow(const long *v, int n)
{
    if (__builtin_expect(n <= 0, 1))
        return 0;
    long acc = 0;
    for (int i = 0; i < n; i++) {
        if (v[i] > 100)                             /* Cond */
            acc += v[i] * 7 + (acc >> 3);
        else
            acc -= v[i] ^ (acc << 2);
        vendor_sink = acc;
        vendor_sink = acc * 3;
        vendor_sink = acc ^ 77;
    }
    for (int i = 0; i < n; i++) {
        vendor_sink = v[i] + i;
        vendor_sink = v[i] * i;
    }
    return acc;
}

int vendor_check(const long *v, int n)
{
    long a = check_slow(v, n);
    long b = check_slow(v + 1, n - 1);
    return (int)(a + b);
}

/* Recursion inside the library: the error is 16 levels below vendor_walk's
 * first call, deeper than --num-callers. */
int vendor_walk(int depth, char *p)
{
    if (depth == 0) {
        p[32] = 'w';                                /* Addr1 write */
        return 1;
    }
    int r = vendor_walk(depth - 1, p);
    vendor_sink = r;
    return r + 1;
}

/* The library calls back into the main program. */
void vendor_each(void (*cb)(short *, int), int n)
{
    short *s = malloc(n * sizeof(short));
    for (int i = 0; i < n; i++)
        s[i] = (short)i;
    cb(s, n);
    vendor_sink = s[0];
    free(s);
}

/* always_inline helper: appears as an inlined frame "peek". */
static inline __attribute__((always_inline)) int peek(const int *a, int i)
{
    return a[i];                                    /* Addr4 read (inlined) */
}

int vendor_peek_past_end(int n)
{
    int *a = malloc(n * sizeof(int));
    memset(a, 0, n * sizeof(int));
    int r = peek(a, n);
    vendor_sink = r;
    free(a);
    return r;
}

static NOINLINE void *make_node(size_t sz)
{
    void *p = malloc(sz);                           /* Leak definite (via library) */
    vendor_sink = (long)p;
    return p;
}

void *vendor_make_record(int n)
{
    return make_node(16 + (size_t)n);
}

void *vendor_make_cached(int n)
{
    vendor_cache = calloc((size_t)n, 4);            /* Leak reachable (library global) */
    vendor_sink = n;
    return vendor_cache;
}
