/* Stand-in for the Python interpreter of the scenario: "imports torch" (dlopen of
 * libc10.so and of the CUDA runtime, RTLD_GLOBAL, as torch/__init__.py preloads its
 * libraries), then "imports the extension" (dlopen, then its PyInit_ function).
 *
 *   python3.X SITE_PACKAGES EXTENSION.so
 *
 * The driver (libcuda.so.1) is found by the runtime on the library path
 * (LD_LIBRARY_PATH). The interpreter makes no errors of its own; its frames are the
 * bottom of every stack, as CPython's are in the real recordings.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void *load(const char *path, int global)
{
    void *h = dlopen(path, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        exit(2);
    }
    return h;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SITE_PACKAGES EXTENSION.so\n", argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/torch/lib/libc10.so", argv[1]);
    load(path, 1);
    snprintf(path, sizeof path, "%s/nvidia/cuda_runtime/lib/libcudart.so.12", argv[1]);
    load(path, 1);
    void *ext = load(argv[2], 0);
    int (*init)(void) = (int (*)(void))dlsym(ext, "PyInit_standin_ext");
    if (!init) {
        fprintf(stderr, "no PyInit_standin_ext in %s\n", argv[2]);
        return 2;
    }
    init();
    return 0;
}
