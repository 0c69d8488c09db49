// cxx main: compiled with -O1 -g so that always_inline functions become
// inlined frames while everything else keeps its own frame.
#include <cstdlib>
#include <cstring>
#include <vector>
#include <valgrind/memcheck.h>
#include "box.hh"

volatile long cxx_sink;
ns::Box *kept_box;                               // global: keeps its Box reachable

namespace ns {

Box::Box(int n) : data_(new int[n]), n_(n)
{
    for (int i = 0; i < n; i++)
        data_[i] = i;
}

Box::~Box()
{
    delete[] data_;
}

NOINLINE int Box::get(int i) const
{
    return data_[i];                             // Addr4 read (i == n)
}

namespace detail {
NOINLINE Node *make_chain(int n)
{
    Node *head = new Node;                       // Leak definite (operator new)
    head->next = nullptr;
    head->payload = new int[n];                  // Leak indirect (operator new[])
    return head;
}
}  // namespace detail

}  // namespace ns

namespace {

struct Shape {
    virtual ~Shape() {}
    virtual long area() const = 0;
};

struct Rect : Shape {
    long w, h;
    NOINLINE long area() const override          // _ZNK12_GLOBAL__N_14Rect4areaEv
    {
        if (w * h > 10)                          // Cond (virtual call, anon namespace)
            cxx_sink = w;
        else
            cxx_sink = h;
        return w;
    }
};

NOINLINE void read_through_box()
{
    ns::Box b(4);
    cxx_sink = b.get(4);
}

NOINLINE void read_through_inline()
{
    ns::Box b(3);
    cxx_sink = b.ipair(3);                       // Addr4 read in iget inlined in ipair
}

NOINLINE void read_through_template()
{
    int *p = new int[2];
    cxx_sink = ns::tget(p, 2);                   // Addr4 read in inlined tget<int>
    delete[] p;
}

NOINLINE void read_through_vector()
{
    std::vector<long> v(3);
    cxx_sink = v[3];                             // Addr8 read in inlined operator[]
}

NOINLINE void mismatched_delete()
{
    int *p = new int[6];
    delete p;                                    // Free (mismatched new[] / delete)
}

NOINLINE void mismatched_free()
{
    char *volatile p = new char[10];
    free(p);                                     // Free (mismatched new[] / free)
}

NOINLINE void delete_twice()
{
    ns::Box *b = new ns::Box(2);
    delete b;
    ::operator delete(b);                        // Free (invalid: already freed)
}

NOINLINE void virtual_cond()
{
    Rect *r = new Rect;
    r->w = 3;
    VALGRIND_MAKE_MEM_UNDEFINED(&r->h, sizeof r->h);
    Shape *s = r;
    cxx_sink = s->area();
    delete r;
}

NOINLINE void template_cond()
{
    long *v = new long(50);
    VALGRIND_MAKE_MEM_UNDEFINED(v, sizeof *v);
    long limit = 40;
    cxx_sink = ns::over_limit(*v, limit);        // Cond inside ns::over_limit<long>
    delete v;
}

NOINLINE void leaks()
{
    cxx_sink = (long)ns::detail::make_chain(5);
    cxx_sink = 0;
    kept_box = new ns::Box(7);                   // Leak reachable (Box and its data)
    cxx_sink = (long)new std::vector<long>(3);   // Leak definite + indirect (inlined STL frames)
    cxx_sink = 0;
}

}  // namespace

int main()
{
    read_through_box();
    read_through_inline();
    read_through_template();
    read_through_vector();
    mismatched_delete();
    mismatched_free();
    delete_twice();
    virtual_cond();
    template_cond();
    auto lambda = [](int n) NOINLINE { return ns::clone_entry(n); };
    cxx_sink = lambda(5);
    leaks();
    return 0;
}
