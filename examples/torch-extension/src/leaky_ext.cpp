// leaky_ext: the seed scenario's PyTorch C++ extension, with known bugs on purpose.
// Build with -O0 -g (setup.py does) so Valgrind's frames carry these source lines;
// the line numbers are the ground truth in ../shared/fixtures/README.md: moving a
// line changes what the recordings and the tests expect.
#include <torch/extension.h>

// The seed article's leak: 1000 floats allocated and never freed (4,000 bytes).
// Definitely lost when no stale copy of the pointer survives; possibly lost otherwise.
void dangerous_function() {
    // A function with memory leak (the article's example).
    float* data = new float[1000];
    data[0] = 1.0f;
    // forgot: delete[] data;
}

// Control: the same allocation, released; Valgrind must report nothing here.
void safe_function() {
    float* data = new float[1000];
    delete[] data;
}

// A branch on heap memory nobody wrote (origin: the new[] on line 24).
int uninit_branch() {
    int* flags = new int[4];
    int result = 0;
    if (flags[2] > 0) {
        result = 1;
    }
    delete[] flags;
    return result;
}

// An uninitialised value returned to Python: Memcheck reports it where libpython and
// pybind11 use it (PyLong_FromSsize_t, str(), write), its origin here on line 36.
long uninit_return() {
    long* values = new long[4];
    long value = values[1];
    delete[] values;
    return value;
}

// One past the end of a 4,000-byte block: an invalid write, then an invalid read.
float overflow() {
    float* buf = new float[1000];
    for (int i = 0; i < 1000; ++i) buf[i] = 0.5f;
    buf[1000] = 1.0f;
    float sum = buf[0];
    sum += buf[1000];
    delete[] buf;
    return sum;
}

// new[] released with scalar delete: Memcheck's "Mismatched free() / delete / delete []".
void mismatched_delete() {
    int* items = new int[10];
    items[0] = 42;
    delete items;
}

// A read from a block already freed (alloc'd on line 62, freed on line 64).
float use_after_free() {
    float* p = new float[8];
    p[0] = 3.0f;
    delete[] p;
    return p[0];
}

// No bug: ordinary libtorch calls, so their allocations (caches, thread pools, kernels
// chosen on first use) show with first-party frames under them.
torch::Tensor torch_ops(int64_t n) {
    auto a = torch::rand({n, n});
    auto b = torch::ones({n, n});
    return torch::matmul(a, b);
}

// A heap-allocated tensor handle that is never deleted: the handle itself (8 bytes) is
// definitely lost, and the TensorImpl, StorageImpl and data buffer it keeps alive are
// indirectly lost inside c10.
void tensor_leak(int64_t n) {
    // The pointer is dropped when the function returns; nothing ever releases the
    // reference the handle holds.
    auto* handle = new torch::Tensor(torch::zeros({n}));
    (void)handle;
}

// The bindings. Every docstring's length is part of pybind11's template arguments
// (`char [N]`) and so of the mangled names in the frames and gen blocks; they are kept
// the lengths of the recorded build, so a rebuild prints the same function names.
//
//   run_leak           dangerous_function   line 11
//   safe_function      safe_function        lines 17-19 (control)
//   uninit_branch      uninit_branch        lines 24, 26
//   uninit_return      uninit_return        lines 36, 37
//   overflow           overflow             lines 44, 46, 48
//   mismatched_delete  mismatched_delete    lines 55, 57
//   use_after_free     use_after_free       lines 62-65
//   torch_ops          torch_ops            lines 71, 73 (no bug)
//   tensor_leak        tensor_leak          line 82
//
// The first m.def is line 102: pybind11 allocates its internals there, once.
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("run_leak", &dangerous_function, "Leaks new float[1000]");
    m.def("safe_function", &safe_function, "Allocates and frees (control)");
    m.def("uninit_branch", &uninit_branch, "Branches on uninitialised new[] data");
    m.def("uninit_return", &uninit_return, "Returns a long that was never written to");
    m.def("overflow", &overflow, "Writes and reads one past the end");
    m.def("mismatched_delete", &mismatched_delete, "new[] paired with a delete");
    m.def("use_after_free", &use_after_free, "Reads freed memory");
    m.def("torch_ops", &torch_ops, "rand + matmul: a clean libtorch use");
    m.def("tensor_leak", &tensor_leak, "Leaks a heap-allocated at::Tensor");
}
