// The first-party extension of the stand-in scenario (built -O0 -g, like the seed's
// leaky_ext): its bugs are the errors a suppression must never hide. Line numbers are
// what tests/cli/gen_scenario.rs checks; README.md lists them.
#include <cstddef>
#include <cstdint>

extern "C" int cudaGetDeviceCount(int* count);
namespace c10 {
void* alloc_cpu(std::size_t nbytes);
void free_cpu(void* data);
std::int64_t checked_numel(const std::int64_t* sizes, std::size_t ndim);
struct StorageImpl;
StorageImpl* make_storage(std::size_t nbytes);
int cpu_capability();
}  // namespace c10

// Bug 1: 4,000 bytes definitely lost.
void leak_floats() {
    float* data = new float[1000];
    data[0] = 1.0f;
}

// Bug 2: an invalid read of size 4, just past a 64-byte block (alloc'd on line 25).
int read_past_end() {
    int* values = new int[16];
    for (int i = 0; i < 16; ++i) values[i] = i;
    int last = values[16];
    delete[] values;
    return last;
}

// Bug 3: an uninitialised size passed into libc10, which branches on it: Memcheck
// reports the jump inside c10::checked_numel, with its origin here (line 35).
std::int64_t uninit_into_c10() {
    auto* sizes = new std::int64_t[2];
    sizes[0] = 4;
    std::int64_t n = c10::checked_numel(sizes, 2);
    delete[] sizes;
    return n;
}

// Bug 4: a heap handle to a storage never released: the handle is definitely lost at
// line 50, the storage and its data (allocated inside c10) indirectly lost.
struct Handle {
    c10::StorageImpl* storage;
    long id;
};

void leak_handle() {
    auto* h = new Handle{c10::make_storage(1024), 7};
    (void)h;
}

// No bug: the third-party calls whose own errors show first-party frames under them.
int probe_cuda() {
    int count = -1;
    int rc = cudaGetDeviceCount(&count);
    return rc == 0 ? count : 0;
}

int use_c10() {
    void* p = c10::alloc_cpu(256);
    c10::free_cpu(p);
    return c10::cpu_capability();
}

// The module's entry point, as Python calls PyInit_<name> on import.
extern "C" __attribute__((visibility("default"))) int PyInit_standin_ext() {
    int acc = 0;
    acc += use_c10();
    acc += probe_cuda();
    leak_floats();
    acc += read_past_end();
    std::int64_t n = uninit_into_c10();
    (void)n;
    leak_handle();
    return acc;
}
