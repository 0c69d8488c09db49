/* Jump to an invalid address: Memcheck reports InvalidJump, then the process dies of SIGSEGV. */
#include <stdlib.h>
typedef void (*fn_t)(void);
static void jump(fn_t f) { f(); }
int main(void) {
    void *leak = malloc(32);
    (void)leak;
    jump((fn_t)0x1234);
    return 0;
}
