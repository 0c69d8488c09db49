#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/wait.h>
static int rd(int *p, int i) { return p[i]; }
static int cond(int *p) { if (p[0] > 3) return 1; return 0; }
int main(void) {
  pid_t pid = fork();
  for (int k = 0; k < 3; k++) {
    int *p = malloc(4 * sizeof(int));
    int v = pid ? rd(p, 4 + k) : cond(p);
    printf("%s iteration %d v=%d\n", pid ? "parent" : "child", k, v);
    fflush(stdout);
    free(p);
    usleep(pid ? 200000 : 300000);
  }
  if (pid) waitpid(pid, NULL, 0);
  return 0;
}
