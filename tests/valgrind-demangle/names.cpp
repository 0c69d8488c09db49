// Names whose display the tests compare with the real Valgrind's (tests/cli/demangle.rs):
// templates with expressions in their signature, lambdas with `auto` packs (which the
// demangler Valgrind 3.19 bundles cannot demangle, so Valgrind shows them mangled),
// constructors, operators, clone suffixes, ABI tags, anonymous namespaces.
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>

struct B {};
struct D : B {};

template <class T, class U>
typename std::enable_if<!std::is_reference_v<T> && std::is_base_of_v<B, T>, T*>::type
    __attribute__((noinline)) expr_and(U) {
  return static_cast<T*>(malloc(7));
}

template <class T>
typename std::enable_if<!std::is_same_v<T, int>, void*>::type __attribute__((noinline))
expr_not(T) {
  return malloc(9);
}

template <int N>
typename std::enable_if<(sizeof(int) * 8 <= N), void*>::type __attribute__((noinline))
expr_sizeof() {
  return malloc(13);
}

template <class F, class... A>
__attribute__((noinline)) void* call(F f, A&&... a) {
  return f(std::forward<A>(a)...);
}

template <class T>
__attribute__((noinline)) void* auto_pack(T t) {
  return call([](auto&... xs) __attribute__((noinline)) { return malloc(11 + sizeof...(xs)); },
              t, t);
}

namespace {
struct Widget {
  void* p;
  __attribute__((noinline)) Widget() : p(malloc(15)) {}
  __attribute__((noinline)) void* operator()(int n) const { return malloc(n); }
};
__attribute__((noinline)) std::string tagged() { return std::string(40, 'x'); }
}  // namespace

namespace ns {
template <class T>
struct Box {
  __attribute__((noinline)) static void* make(const T&) { return malloc(sizeof(T) + 17); }
};
}  // namespace ns

void* volatile sink[8];

int main() {
  sink[0] = expr_and<D>(3);
  sink[1] = expr_not(3.0);
  sink[2] = expr_sizeof<64>();
  sink[3] = auto_pack(5);
  sink[4] = (new Widget)->p;
  sink[5] = Widget{}(19);
  sink[6] = ns::Box<std::pair<int, long>>::make({1, 2});
  static std::string* s = new std::string(tagged());
  sink[7] = s;
  for (auto& p : sink) p = nullptr;
  s = nullptr;
}
