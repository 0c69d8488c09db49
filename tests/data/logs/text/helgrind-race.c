#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
int counter;
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static void *worker(void *arg) { counter++; return arg; }
static void *lock_ab(void *arg) { pthread_mutex_lock(&a); pthread_mutex_lock(&b); pthread_mutex_unlock(&b); pthread_mutex_unlock(&a); return arg; }
int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  counter++;
  pthread_join(t, NULL);
  printf("program output: counter=%d\n", counter);
  /* lock order violation */
  pthread_create(&t, NULL, lock_ab, NULL);
  pthread_join(t, NULL);
  pthread_mutex_lock(&b); pthread_mutex_lock(&a); pthread_mutex_unlock(&a); pthread_mutex_unlock(&b);
  /* unlock a not-locked lock */
  pthread_mutex_unlock(&a);
  /* unlock an invalid lock */
  pthread_mutex_t *bogus = malloc(sizeof *bogus);
  pthread_mutex_unlock(bogus);
  free(bogus);
  return 0;
}
