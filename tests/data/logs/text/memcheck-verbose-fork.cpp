#include <valgrind/memcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/wait.h>

struct Node { Node *next; char pad[24]; };
static Node *keep;
static char *possibly;

namespace ns { template <typename T> struct Box { T v[2]; T get(int i) const { return v[i]; } }; }

static void *thread_fn(void *) {
  int *p = (int *)malloc(4 * sizeof(int));
  p[4] = 1;                     // invalid write in thread 2
  free(p);
  return nullptr;
}

int main(int argc, char **argv) {
  int *a = (int *)malloc(10 * sizeof(int));
  int x = a[10];                // invalid read 4
  if (a[0] == 42) puts("yes");  // cond
  char *u = (char *)malloc(8);
  write(1, u, 8);               // param write(buf)
  free(u);
  free(u);                      // invalid free
  int *arr = new int[3];
  delete arr;                   // mismatched
  char buf[16] = "abcdefghijklmn";
  char *(*volatile mc)(char *, const char *, size_t) = strncpy;
  mc(buf + 1, buf, 5);          // overlap
  void *fishy = malloc((size_t)-1); // fishy
  (void)fishy;
  char *chk = (char *)malloc(4);
  VALGRIND_CHECK_MEM_IS_DEFINED(chk, 4); // user
  ns::Box<long> *bx = (ns::Box<long> *)malloc(sizeof(ns::Box<long>));
  long v = bx->get(1);
  if (v) printf("v\n");          // cond via template
  pthread_t t; pthread_create(&t, nullptr, thread_fn, nullptr); pthread_join(t, nullptr);
  int *b = (int *)malloc(8);
  b[2] = 0;                     // invalid write back on thread 1
  // leaks
  Node *n1 = (Node *)malloc(sizeof(Node)); n1->next = (Node *)malloc(sizeof(Node)); n1 = nullptr; // definite + indirect
  keep = (Node *)malloc(sizeof(Node));   // reachable
  possibly = (char *)malloc(100) + 10;   // possibly lost
  void *lost = malloc(1234567); lost = nullptr; // definite big (thousands separators)
  VALGRIND_PRINTF("client message %d\n", 7);
  if (argc > 1) {
    pid_t pid = fork();
    if (pid == 0) { int *c = (int *)malloc(4); int y = c[1]; (void)y; free(c); _exit(0); }
    waitpid(pid, nullptr, 0);
  }
  void (*fp)(void) = (void (*)(void))0x1234;
  if (argc > 2) fp();           // jump
    (void)x; (void)chk;
  return 0;
}
