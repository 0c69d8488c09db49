/* Loss records tied in size, repeated error contexts and competing rules, for the credit
 * test (tests/cli/match_credit.rs): Valgrind's own `used_suppression` counts must lie
 * between vgsupp's certain hits and its bound.
 *
 * Every `leakNN` allocates 32 bytes through `site` from its own call site, so each is a
 * loss record of 32 bytes in 1 block: one tie group per leak kind, whose order differs from
 * run to run. The rules in ties-a.supp and ties-b.supp compete for them. */
#include <stdlib.h>
#include <string.h>

void *keep[64];
int nkeep;

__attribute__((noinline)) void *site(size_t n) { return malloc(n); }

/* A definitely lost block per function. */
#define LOST(n) \
    __attribute__((noinline)) void leak##n(void) { void *volatile p = site(32); p = 0; (void)p; }
/* A still reachable block per function. */
#define KEPT(n) \
    __attribute__((noinline)) void kept##n(void) { keep[nkeep++] = site(32); }

LOST(10) LOST(11) LOST(12) LOST(13) LOST(14) LOST(15) LOST(16) LOST(17)
LOST(20) LOST(21) LOST(22) LOST(23) LOST(24) LOST(25) LOST(26) LOST(27)
KEPT(30) KEPT(31) KEPT(32) KEPT(33) KEPT(34) KEPT(35)

/* A conditional jump on an uninitialised value: one context, several occurrences. */
volatile int sink;
__attribute__((noinline)) int branchy(int *p) {
    if (*p > 3) sink++;
    return 0;
}
__attribute__((noinline)) int cond_once(void) {
    int *p = malloc(sizeof *p);
    int r = branchy(p);
    free(p);
    return r;
}
__attribute__((noinline)) int cond_twice(void) {
    int *p = malloc(sizeof *p);
    int r = branchy(p);
    free(p);
    return r;
}

int main(void) {
    int r = 0;
    for (int i = 0; i < 5; i++) r += cond_once();
    for (int i = 0; i < 3; i++) r += cond_twice();
    leak10(); leak11(); leak12(); leak13(); leak14(); leak15(); leak16(); leak17();
    leak20(); leak21(); leak22(); leak23(); leak24(); leak25(); leak26(); leak27();
    kept30(); kept31(); kept32(); kept33(); kept34(); kept35();
    return r;
}
