// Layout 2: a Python-style extension whose object (my_ext.cpython-311-x86_64-linux-gnu.so)
// is named unlike its source (ext.cpp).
#include <cstdlib>

namespace my_ext {
int *volatile keep;

__attribute__((noinline)) int off_by_one(int n) {
  int *a = new int[n];
  a[n] = 1;  // BUG: invalid write
  int v = a[0];
  delete[] a;
  return v;
}

__attribute__((noinline)) void leak() {
  keep = new int[11];  // BUG: definitely lost
  keep = nullptr;
}
}  // namespace my_ext

extern "C" void run() {
  my_ext::off_by_one(8);
  my_ext::leak();
}
