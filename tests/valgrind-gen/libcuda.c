/* Stand-in for the NVIDIA user-space driver, libcuda.so.<driver>: installed under
 * .../x86_64-linux-gnu/, stripped (only the exported cu* entry points keep names; every
 * internal function prints as `???`), dlopen()ed by the runtime and dlclose()d again
 * when cuInit fails, as it does on a machine without a GPU. Its frames in the leak
 * report, printed after the unload, are `???` without an object.
 *
 * Third-party errors it makes (none is the extension's fault):
 *   - Syscall param ioctl(generic) points to uninitialised byte(s): an ioctl argument
 *     only partly filled in (the real driver relies on the kernel to fill the rest);
 *   - Conditional jump or move depends on uninitialised value(s): a flag read from a
 *     heap block nobody wrote (origin: a malloc in this library);
 *   - leaks: a block dropped at once (definitely lost) and one held in a global, lost
 *     when the library is unloaded.
 *
 * STANDIN_DRIVER_VERSION is the driver version (e.g. 535104 for 535.104.05).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define INTERNAL __attribute__((noinline))

#ifndef STANDIN_DRIVER_VERSION
#define STANDIN_DRIVER_VERSION 535104
#endif

struct card_info {
    unsigned int valid;
    unsigned int bus;
    unsigned int pad[14]; /* never written: the kernel would fill these in */
};

struct device_table {
    int count;
    int flags[8];
};

static struct device_table *g_devices; /* lost when the library is unloaded */

static INTERNAL int query_cards(void)
{
    struct card_info cards[4];
    cards[0].valid = 1;
    cards[0].bus = 0;
    /* A device node that exists everywhere; the real driver opens /dev/nvidiactl. */
    int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = ioctl(fd, _IOWR('F', 0xd2, struct card_info[4]), cards);
    close(fd);
    return rc;
}

/* Published through a volatile pointer so that the optimiser cannot see through the
 * allocation and drop the read (it would, and the error with it). */
static int *volatile g_keys;

static INTERNAL int read_registry(void)
{
    /* Registry keys read into a block nobody initialised. */
    g_keys = malloc(16 * sizeof(int));
    int *keys = g_keys;
    if (!keys)
        return 0;
    int enabled = 0;
    if (keys[3] > 7)
        enabled = 1;
    g_keys = NULL;
    free(keys);
    return enabled;
}

static INTERNAL void init_tables(void)
{
    g_devices = calloc(1, sizeof *g_devices);
    char *scratch = malloc(96); /* dropped: definitely lost */
    if (scratch)
        memset(scratch, 0, 96);
}

EXPORT int cuDriverGetVersion(int *version)
{
    *version = STANDIN_DRIVER_VERSION / 1000 * 10;
    return 0;
}

EXPORT int cuInit(unsigned int flags)
{
    (void)flags;
    init_tables();
    int enabled = read_registry();
    if (query_cards() < 0 || !enabled)
        return 100; /* CUDA_ERROR_NO_DEVICE */
    return 0;
}
