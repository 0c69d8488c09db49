/* basic: every Memcheck error kind that 3.19 can produce on amd64, raised from
 * the main executable (C, -O0 -g).  Each error has its own call site, so no two
 * errors share their top 4 IPs, except the deliberate dedup pair (dedup_*).
 * The order of the calls in main() is the order of the errors in the log. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <immintrin.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/memcheck.h>

#define NOINLINE __attribute__((noinline))

extern void *__memcpy_chk(void *, const void *, size_t, size_t);

volatile long sink;
int table[256];
void *keep_reachable;            /* still reachable leak */
char *keep_interior;             /* possibly lost leak (interior pointer) */
static sigjmp_buf jump_env;

/* A heap value whose bytes hold `v` but are marked undefined. */
static NOINLINE long *undefined_long(long v)
{
    long *p = malloc(sizeof *p);
    *p = v;
    VALGRIND_MAKE_MEM_UNDEFINED(p, sizeof *p);
    return p;
}

NOINLINE void read_int_past_end(void)
{
    int *a = malloc(10 * sizeof(int));
    sink = a[10];                                   /* Addr4 read */
    free(a);
}

NOINLINE void write_int_past_end(void)
{
    int *a = malloc(10 * sizeof(int));
    a[10] = 7;                                      /* Addr4 write */
    free(a);
}

NOINLINE void read_char_before_start(void)
{
    char *c = malloc(16);
    sink = c[-1];                                   /* Addr1 read */
    free(c);
}

NOINLINE void write_char_past_end(void)
{
    char *c = malloc(16);
    c[16] = 'x';                                    /* Addr1 write */
    free(c);
}

NOINLINE void read_short_past_end(void)
{
    short *s = malloc(6 * sizeof(short));
    sink = s[6];                                    /* Addr2 read */
    free(s);
}

NOINLINE void read_long_after_free(void)
{
    long *l = malloc(4 * sizeof(long));
    free(l);
    sink = l[1];                                    /* Addr8 read (freed block) */
}

__attribute__((noinline, target("sse2"))) void read_m128_past_end(void)
{
    char *b = malloc(16);
    __m128i v = _mm_loadu_si128((const __m128i *)(b + 16));   /* Addr16 read */
    sink = _mm_cvtsi128_si32(v);
    free(b);
}

__attribute__((noinline, target("avx2"))) void read_m256_past_end(void)
{
    char *b = malloc(32);
    __m256i v = _mm256_loadu_si256((const __m256i *)(b + 32)); /* Addr32 read */
    sink = _mm256_extract_epi32(v, 0);
    free(b);
}

NOINLINE void index_with_undefined(void)
{
    long *u = undefined_long(3);
    sink = table[*u];                               /* Value8 (address) */
    free(u);
}

NOINLINE void branch_on_undefined(void)
{
    long *u = undefined_long(1);
    if (*u > 0)                                     /* Cond */
        sink = 1;
    free(u);
}

NOINLINE void write_undefined_buffer(int fd)
{
    char *buf = malloc(32);
    memset(buf, 'a', 16);                           /* bytes 16..31 stay undefined */
    sink = write(fd, buf, 32);                      /* Param write(buf) */
    free(buf);
}

NOINLINE void write_undefined_count(int fd)
{
    long *n = undefined_long(4);
    sink = write(fd, "abcd", (size_t)*n);           /* Param write(count) */
    free(n);
}

NOINLINE void open_freed_name(void)
{
    char *name = strdup("/dev/null");
    free(name);
    int fd = open(name, O_RDONLY);                  /* Param openat(filename) */
    if (fd >= 0)
        close(fd);
}

NOINLINE void overlapping_memcpy(void)
{
    char *b = malloc(32);
    volatile size_t n = 16;
    memset(b, 'b', 32);
    /* Plain memcpy is no good here: on this glibc the PLT resolves to
     * __memcpy_avx_unaligned_erms, which Valgrind redirects to its memmove
     * (no overlap check).  The fortified entry point keeps the check. */
    __memcpy_chk(b + 4, b, n, 28);                  /* Overlap memcpy_chk */
    free(b);
}

NOINLINE void overlapping_strcpy(void)
{
    char *b = malloc(32);
    strcpy(b, "overlapping");
    char *volatile src = b + 2;
    strcpy(b, src);                                 /* Overlap strcpy */
    free(b);
}

NOINLINE void free_interior_pointer(void)
{
    char *b = malloc(32);
    free(b + 8);                                    /* Free (invalid) */
    free(b);
}

NOINLINE void free_twice(void)
{
    char *b = malloc(32);
    free(b);
    free(b);                                        /* Free (double) */
}

NOINLINE void malloc_negative(void)
{
    volatile long n = -5;
    sink = (long)malloc((size_t)n);                 /* FishyValue malloc(size) */
}

NOINLINE void calloc_negative(void)
{
    volatile long n = -3;
    volatile size_t zero = 0;                       /* no overflow: reaches the tool */
    sink = (long)calloc((size_t)n, zero);           /* FishyValue calloc(nmemb) */
}

NOINLINE void realloc_negative(void)
{
    char *b = malloc(8);
    volatile long n = -7;
    sink = (long)realloc(b, (size_t)n);             /* FishyValue realloc(size) */
    free(b);
}

NOINLINE void check_defined(void)
{
    char *b = malloc(8);
    b[0] = 1;
    VALGRIND_CHECK_MEM_IS_DEFINED(b, 8);            /* User (uninitialised) */
    free(b);
}

NOINLINE void check_addressable(void)
{
    char *b = malloc(8);
    VALGRIND_CHECK_MEM_IS_ADDRESSABLE(b, 12);       /* User (unaddressable) */
    free(b);
}

/* Deep stack: 14 distinct functions; the error is 14 calls below main, deeper
 * than --num-callers=12. */
NOINLINE void chain_14(char *p) { p[64] = 1; }     /* Addr1 write, deep */
NOINLINE void chain_13(char *p) { chain_14(p); sink++; }
NOINLINE void chain_12(char *p) { chain_13(p); sink++; }
NOINLINE void chain_11(char *p) { chain_12(p); sink++; }
NOINLINE void chain_10(char *p) { chain_11(p); sink++; }
NOINLINE void chain_09(char *p) { chain_10(p); sink++; }
NOINLINE void chain_08(char *p) { chain_09(p); sink++; }
NOINLINE void chain_07(char *p) { chain_08(p); sink++; }
NOINLINE void chain_06(char *p) { chain_07(p); sink++; }
NOINLINE void chain_05(char *p) { chain_06(p); sink++; }
NOINLINE void chain_04(char *p) { chain_05(p); sink++; }
NOINLINE void chain_03(char *p) { chain_04(p); sink++; }
NOINLINE void chain_02(char *p) { chain_03(p); sink++; }
NOINLINE void chain_01(char *p) { chain_02(p); sink++; }

NOINLINE void deep_chain(void)
{
    char *p = malloc(64);
    chain_01(p);
    free(p);
}

/* Recursion: a Cond error 9 levels down the same function. */
NOINLINE void recurse_cond(int depth, long *u)
{
    if (depth == 0) {
        if (*u == 2)                                /* Cond, recursive stack */
            sink = 2;
        return;
    }
    recurse_cond(depth - 1, u);
    sink++;
}

NOINLINE void recursion(void)
{
    long *u = undefined_long(2);
    recurse_cond(8, u);
    free(u);
}

/* Dedup pair: both calls share the top 4 IPs (dedup_leaf, dedup_mid,
 * dedup_top, dedup_entry); only the 5th frame differs.  Valgrind reports one
 * error context with 2 occurrences, whose stack is the first caller's. */
NOINLINE void dedup_leaf(int *a) { sink = a[5]; }  /* Addr4 read, deduped */
NOINLINE void dedup_mid(int *a) { dedup_leaf(a); sink++; }
NOINLINE void dedup_top(int *a) { dedup_mid(a); sink++; }
NOINLINE void dedup_entry(int *a) { dedup_top(a); sink++; }
NOINLINE void dedup_first_caller(int *a) { dedup_entry(a); sink++; }
NOINLINE void dedup_second_caller(int *a) { dedup_entry(a); sink++; }

NOINLINE void dedup_pair(void)
{
    int *a = malloc(5 * sizeof(int));
    dedup_first_caller(a);
    dedup_second_caller(a);
    free(a);
}

static void on_segv(int sig)
{
    (void)sig;
    siglongjmp(jump_env, 1);
}

NOINLINE void call_bad_pointer(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    if (sigsetjmp(jump_env, 1) == 0) {
        void (*volatile fp)(void) = (void (*)(void))0x1234;
        fp();                                       /* Jump */
    }
    signal(SIGSEGV, SIG_DFL);
}

struct node { struct node *next; char payload[24]; };

NOINLINE void leak_definite(void)
{
    sink = (long)malloc(40);                        /* Leak definite */
    sink = 0;
}

NOINLINE void leak_indirect(void)
{
    struct node *head = malloc(sizeof *head);       /* Leak definite (24+32 bytes) */
    head->next = malloc(sizeof *head->next);        /* Leak indirect */
    head->next->next = NULL;
    head = NULL;
}

NOINLINE void leak_possible(void)
{
    char *b = malloc(72);                           /* Leak possible */
    keep_interior = b + 8;
}

NOINLINE void leak_reachable(void)
{
    keep_reachable = calloc(11, 8);                 /* Leak reachable */
}

NOINLINE void leak_realloc(void)
{
    char *b = malloc(10);
    b = realloc(b, 100);                            /* Leak definite (realloc) */
    sink = (long)b;
    sink = 0;
}

int main(void)
{
    int fd = open("/dev/null", O_WRONLY);
    read_int_past_end();
    write_int_past_end();
    read_char_before_start();
    write_char_past_end();
    read_short_past_end();
    read_long_after_free();
    read_m128_past_end();
    read_m256_past_end();
    index_with_undefined();
    branch_on_undefined();
    write_undefined_buffer(fd);
    write_undefined_count(fd);
    open_freed_name();
    overlapping_memcpy();
    overlapping_strcpy();
    free_interior_pointer();
    free_twice();
    malloc_negative();
    calloc_negative();
    realloc_negative();
    check_defined();
    check_addressable();
    deep_chain();
    recursion();
    dedup_pair();
    call_bad_pointer();
    leak_definite();
    leak_indirect();
    leak_possible();
    leak_reachable();
    leak_realloc();
    close(fd);
    return 0;
}
