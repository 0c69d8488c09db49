// Stand-in for libtorch's core library, .../site-packages/torch/lib/libc10.so: C++ with
// namespaces, built -O2 without debug information like the wheel's libraries (frames
// print the function and `(in .../libc10.so)`, no source line), so GCC makes clones of
// some functions (`[clone .constprop.0]`, `.isra.0`), as in the real library.
//
// Third-party errors it makes:
//   - static initialisation: a registry kept in a global (still reachable) and kernel
//     tables built by a constant-propagated clone and dropped (definitely lost);
//   - c10::impl::CpuCaps::probe: a branch on a field of a block this library allocated
//     and never wrote (origin in c10, even when the extension's call led there).
// What it does on the extension's behalf: c10::alloc_cpu (the extension's leaked storage
// is allocated here), c10::checked_numel (branches on the sizes it is given: an
// uninitialised size from the caller is the caller's bug).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#define C10_API __attribute__((visibility("default")))

namespace c10 {

C10_API void* alloc_cpu(std::size_t nbytes);
C10_API void free_cpu(void* data);
C10_API std::int64_t checked_numel(const std::int64_t* sizes, std::size_t ndim);

struct C10_API StorageImpl {
    void* data;
    std::size_t nbytes;
    int refcount;
};

C10_API StorageImpl* make_storage(std::size_t nbytes);
C10_API int cpu_capability();

namespace detail {

struct KernelTable {
    const char* name;
    int slots[30];
};

namespace {

// Local and called with constant arguments only: at -O3 GCC specialises it into
// `make_kernel_table(...) [clone .constprop.0]`, the name Valgrind prints.
__attribute__((noinline)) KernelTable* make_kernel_table(const char* name, int n, int fill) {
    auto* t = new KernelTable[n];
    for (int i = 0; i < n; ++i) {
        t[i].name = name;
        for (int& s : t[i].slots) s = fill + i;
    }
    return t;
}

}  // namespace

struct Registry {
    const char* names[16];
    int size;
};

// Kept for the life of the process: still reachable at exit.
Registry* g_registry = nullptr;

// Built and dropped during static initialisation: definitely lost. The second build
// (STANDIN_VARIANT_B, -O3) asks for a table of another shape, so GCC makes two clones
// and the second table comes from `[clone .constprop.1]`: the same code under another
// name, as a rebuilt library prints it.
__attribute__((noinline)) void register_operators() {
    KernelTable* cpu = make_kernel_table("cpu", 2, 7);
#ifdef STANDIN_VARIANT_B
    KernelTable* meta = make_kernel_table("meta", 3, 9);
#else
    KernelTable* meta = make_kernel_table("cpu", 2, 7);
#endif
    // Only the tables' names are looked at; the tables themselves are forgotten.
    if (cpu->name == nullptr || meta->name == nullptr) std::abort();
}

struct StaticInit {
    StaticInit() {
        g_registry = new Registry();
        g_registry->names[g_registry->size++] = "aten";
        register_operators();
    }
};

StaticInit g_static_init;

}  // namespace detail

namespace impl {

struct CpuCaps {
    int avx2;
    int avx512;
    // Reads a field nobody wrote: the third-party Cond this library makes.
    __attribute__((noinline)) static int probe();
};

// The block is published through a volatile pointer so that the optimiser cannot see
// through the allocation and drop the read (it would, and the error with it).
CpuCaps* volatile g_probe = nullptr;

int CpuCaps::probe() {
    auto* caps = static_cast<CpuCaps*>(std::malloc(sizeof(CpuCaps)));
    if (caps == nullptr) return 0;
    caps->avx2 = 1;
    g_probe = caps;
    CpuCaps* seen = g_probe;
    int level = 0;
    if (seen->avx512 > 0) {
        level = 2;
    } else if (seen->avx2 > 0) {
        level = 1;
    }
    g_probe = nullptr;
    std::free(caps);
    return level;
}

}  // namespace impl

void* alloc_cpu(std::size_t nbytes) {
    void* data = nullptr;
    if (posix_memalign(&data, 64, nbytes) != 0) throw std::bad_alloc();
    std::memset(data, 0, nbytes);
    return data;
}

void free_cpu(void* data) { std::free(data); }

std::int64_t checked_numel(const std::int64_t* sizes, std::size_t ndim) {
    std::int64_t n = 1;
    for (std::size_t i = 0; i < ndim; ++i) {
        if (sizes[i] < 0) throw std::invalid_argument("negative dimension");
        n *= sizes[i];
    }
    return n;
}

StorageImpl* make_storage(std::size_t nbytes) {
    auto* s = new StorageImpl;
    s->data = alloc_cpu(nbytes);
    s->nbytes = nbytes;
    s->refcount = 1;
    return s;
}

int cpu_capability() { return impl::CpuCaps::probe(); }

}  // namespace c10
