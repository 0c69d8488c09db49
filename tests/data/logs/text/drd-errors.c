#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>
int shared;
static void *worker(void *arg) { shared++; return arg; }
int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  shared++;
  pthread_join(t, NULL);
  pthread_mutex_t m; pthread_mutex_init(&m, NULL);
  pthread_mutex_lock(&m); usleep(20000); pthread_mutex_destroy(&m);   /* destroy locked (+hold time) */
  pthread_rwlock_t rw; pthread_rwlock_init(&rw, NULL);
  pthread_rwlock_unlock(&rw);                       /* rwlock not locked */
  pthread_cond_t c; pthread_cond_init(&c, NULL);
  pthread_mutex_t m2; pthread_mutex_init(&m2, NULL);
  struct timespec ts = {0, 0};
  pthread_cond_timedwait(&c, &m2, &ts);             /* mutex not locked */
  sem_t s; sem_init(&s, 0, 0); sem_destroy(&s); sem_post(&s); /* semaphore after destroy */
  printf("done\n");
  return 0;
}
