// Small C++ program with several Memcheck errors and leaks, for vgsupp's XML reader tests.
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <fcntl.h>
#include <valgrind/memcheck.h>

namespace ns {
template <typename T> struct Box {
    T *p;
    explicit Box(int n) : p(new T[n]) {}
    T get(int i) const { return p[i]; }
};
} // namespace ns

static int leaf_read(const int *p) { return p[10]; }   // invalid read of size 4
static void leaf_write(char *p) { p[16] = 1; }          // invalid write of size 1

int uninit_cond() {
    int *p = static_cast<int *>(malloc(sizeof(int) * 4));
    int r = 0;
    if (p[1] > 3) r = 1;  // conditional jump on uninitialised value
    free(p);
    return r;
}

long uninit_value() {
    long *p = static_cast<long *>(malloc(sizeof(long) * 4));
    long arr[4] = {0, 1, 2, 3};
    long r = arr[p[2] & 3];  // use of uninitialised value of size 8
    free(p);
    return r;
}

void syscall_param() {
    char *buf = static_cast<char *>(malloc(16));
    int fd = open("/dev/null", O_WRONLY);
    ssize_t n = write(fd, buf, 16);  // Syscall param write(buf) points to uninitialised byte(s)
    (void)n;
    close(fd);
    free(buf);
}

void mismatched() {
    int *p = new int[4];
    delete p;  // mismatched free() / delete / delete []
}

void double_free() {
    char *p = static_cast<char *>(malloc(8));
    free(p);
    free(p);  // invalid free
}

char *(*volatile strncpy_ptr)(char *, const char *, size_t) = strncpy;

void overlap() {
    char b[32] = "abcdefghijklmnopqrstuvwxyz";
    strncpy_ptr(b + 2, b, 8);  // source and destination overlap
}

void client_check() {
    char *p = static_cast<char *>(malloc(8));
    VALGRIND_CHECK_MEM_IS_DEFINED(p, 8);  // uninitialised byte(s) found during client check request
    free(p);
}

void fishy() {
    volatile long n = -1;
    void *p = malloc(static_cast<size_t>(n));  // Argument 'size' of function malloc has a fishy value
    free(p);
}

void *leak_definite() { return malloc(100); }

struct Node { Node *next; char pad[24]; };

Node *keep;

void leaks() {
    (void)leak_definite();                    // definitely lost
    Node *a = new Node; a->next = new Node;   // a definitely lost, a->next indirectly lost
    a->next->next = nullptr;
    a = nullptr;
    keep = new Node;                           // still reachable
    keep->next = nullptr;
    char *q = static_cast<char *>(malloc(64));
    static char *inner = q + 8;                // possibly lost (interior pointer)
    (void)inner;
}

int main() {
    int *arr = static_cast<int *>(malloc(sizeof(int) * 10));
    memset(arr, 0, sizeof(int) * 10);
    int s = leaf_read(arr);
    char *c = static_cast<char *>(malloc(16));
    leaf_write(c);
    free(c);
    free(arr);
    s += uninit_cond();
    s += static_cast<int>(uninit_value());
    syscall_param();
    mismatched();
    double_free();
    overlap();
    client_check();
    fishy();
    ns::Box<int> box(4);
    s += box.get(2);   // uninitialised, but only copied
    int *uaf = new int(5);
    delete uaf;
    s += *uaf;        // invalid read after free
    leaks();
    return s & 1;
}
