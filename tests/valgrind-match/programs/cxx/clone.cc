// cxx clone.cc: compiled with -O2 -g, so GCC creates .isra/.constprop clones
// of C++ functions: the mangled name keeps the suffix (e.g.
// _ZNK12_GLOBAL__N_14Grid2atEPKii.isra.0) and the demangled form shows
// "[clone .isra.0]".
#include <cstdlib>
#include "box.hh"

namespace {

struct Grid {
    long pad[4];
    int *cells;
    int n;
    NOINLINE int at(int i) const                 // only cells is used: .isra clone
    {
        return cells[i];                         // Addr4 read
    }
};

NOINLINE long weighted(const long *p, int i, int w)   // always w == 5: .constprop clone
{
    return p[i] * w;                             // Addr8 read
}

}  // namespace

namespace ns {

NOINLINE int clone_entry(int n)
{
    Grid g{};
    g.cells = static_cast<int *>(malloc(n * sizeof(int)));
    for (int i = 0; i < n; i++)
        g.cells[i] = i;
    g.n = n;
    int r = g.at(1) + g.at(n);
    free(g.cells);

    long *p = static_cast<long *>(calloc(n, sizeof(long)));
    r += (int)(weighted(p, 0, 5) + weighted(p, n, 5));
    free(p);
    return r;
}

}  // namespace ns
