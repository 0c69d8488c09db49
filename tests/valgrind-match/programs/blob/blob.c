/* libblob: a closed-source-style library, built with -fvisibility=hidden and
 * installed stripped (strip --strip-all), so its internal functions show as
 * "???" with a known object; only the exported entry points keep names
 * (from .dynsym). */
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))
#define NOINLINE __attribute__((noinline))

volatile long blob_sink;

static NOINLINE void blob_scribble(char *p, int n)
{
    p[n] = 0;                                       /* Addr1 write, ??? frame */
    blob_sink = n;
}

static NOINLINE void blob_stage(char *p, int n)
{
    blob_scribble(p, n);
    blob_sink++;
}

static NOINLINE void *blob_alloc(size_t n)
{
    void *p = malloc(n);                            /* Leak definite, ??? frame */
    blob_sink = (long)p;
    return p;
}

EXPORT void blob_run(char *p, int n)
{
    blob_stage(p, n);
    blob_sink++;
}

EXPORT void *blob_leak(void)
{
    void *p = blob_alloc(48);
    blob_sink++;
    return p;
}
