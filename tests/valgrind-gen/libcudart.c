/* Stand-in for the CUDA runtime, .../site-packages/nvidia/cuda_runtime/lib/libcudart.so.12:
 * stripped like the real one (only cuda* entry points keep names), it initialises
 * once under pthread_once, dlopen()s the driver (libcuda.so.1, found on the library
 * path), calls cuInit, and dlclose()s the driver when that fails.
 *
 * Third-party errors it makes: its global state, kept in a static pointer (still
 * reachable), and an error-string table built and dropped (definitely lost). Frames of
 * the driver's own errors run through it.
 *
 * STANDIN_RUNTIME_VERSION is the runtime version (e.g. 12040 for 12.4).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define INTERNAL __attribute__((noinline))

#ifndef STANDIN_RUNTIME_VERSION
#define STANDIN_RUNTIME_VERSION 12040
#endif

struct runtime_state {
    int driver_status;
    int device_count;
    char *error_names[4];
};

static struct runtime_state *g_state;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static INTERNAL void load_error_strings(void)
{
    /* Built and never freed: the real runtime does the same with its tables. */
    char **table = calloc(8, sizeof *table);
    if (!table)
        return;
    table[0] = strdup("cudaSuccess");
    table[1] = strdup("cudaErrorNoDevice");
}

static INTERNAL int load_driver(void)
{
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver)
        return 35; /* cudaErrorInsufficientDriver */
    int (*init)(unsigned int) = (int (*)(unsigned int))dlsym(driver, "cuInit");
    int rc = init ? init(0) : 35;
    if (rc != 0) {
        dlclose(driver);
        return 100; /* cudaErrorNoDevice */
    }
    return 0;
}

static INTERNAL void init_once(void)
{
    g_state = calloc(1, sizeof *g_state);
    if (!g_state)
        return;
    load_error_strings();
    g_state->driver_status = load_driver();
}

static INTERNAL struct runtime_state *state(void)
{
    pthread_once(&g_once, init_once);
    return g_state;
}

EXPORT int cudaRuntimeGetVersion(int *version)
{
    *version = STANDIN_RUNTIME_VERSION;
    return 0;
}

EXPORT int cudaGetDeviceCount(int *count)
{
    struct runtime_state *s = state();
    *count = 0;
    return s ? s->driver_status : 2;
}

EXPORT const char *cudaGetErrorString(int error)
{
    return error == 0 ? "no error" : "no CUDA-capable device is detected";
}
