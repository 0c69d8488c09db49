// cxx: namespaces, classes, templates, inlined frames, C++ allocators.
#ifndef BOX_HH
#define BOX_HH
#include <cstddef>

#define NOINLINE __attribute__((noinline))
#define ALWAYS_INLINE inline __attribute__((always_inline))

extern volatile long cxx_sink;

namespace ns {

class Box {
public:
    explicit Box(int n);
    ~Box();
    int get(int i) const;                        // _ZNK2ns3Box3getEi
    ALWAYS_INLINE int iget(int i) const          // inlined frame "iget"
    {
        int v = data_[i];                        // Addr4 read (inlined, 2 levels)
        cxx_sink = v;
        return v * 2;
    }
    ALWAYS_INLINE int ipair(int i) const         // inlined frame "ipair"
    {
        int a = iget(i);
        cxx_sink = a;
        return a + 1;
    }
    int size() const { return n_; }
    int *data_;
    int n_;
};

template <typename T>
ALWAYS_INLINE T tget(const T *p, int i)          // inlined frame "tget<int>"
{
    T v = p[i];                                  // Addr4 read (inlined template)
    cxx_sink = 1;
    return v + 1;
}

template <typename T>
NOINLINE bool over_limit(const T &v, const T &limit)   // _ZN2ns10over_limitIlEEbRKT_S3_
{
    if (v > limit) {                             // Cond inside the template
        cxx_sink = 1;
        return true;
    }
    cxx_sink = 2;
    return false;
}

namespace detail {
struct Node {
    Node *next;
    int *payload;
};
Node *make_chain(int n);                         // _ZN2ns6detail10make_chainEi
}

// Defined in clone.cc, compiled with -O2.
int clone_entry(int n);

}  // namespace ns

#endif
