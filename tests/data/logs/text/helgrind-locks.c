/* Helgrind/DRD announcements (tests/data/logs/text/README.md): thread announcements, a
   race on a counter written by a thread that holds lock a and by main that holds lock b
   (Helgrind announces both locks before the error), a lock-order violation. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static int counter;
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static void *locked_writer(void *arg) {
  pthread_mutex_lock(&a);
  counter++;                       /* written with lock a held */
  pthread_mutex_unlock(&a);
  return arg;
}
static void *lock_ab(void *arg) {
  pthread_mutex_lock(&a); pthread_mutex_lock(&b);
  pthread_mutex_unlock(&b); pthread_mutex_unlock(&a);
  return arg;
}
int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, locked_writer, NULL);
  usleep(100000);
  pthread_mutex_lock(&b);
  counter++;                       /* with lock b only: races with the write under a */
  pthread_mutex_unlock(&b);
  pthread_join(t1, NULL);
  pthread_create(&t2, NULL, lock_ab, NULL);
  pthread_join(t2, NULL);
  pthread_mutex_lock(&b); pthread_mutex_lock(&a);   /* b before a: order violated */
  pthread_mutex_unlock(&a); pthread_mutex_unlock(&b);
  printf("counter=%d\n", counter);
  return 0;
}
