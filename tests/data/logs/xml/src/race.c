/* Two threads write a shared counter without a lock (a data race), and one unlocks a
 * mutex it does not hold: errors for Helgrind and DRD. */
#include <pthread.h>
#include <stdio.h>

static int counter;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 100; i++)
        counter++;
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_mutex_unlock(&mu);
    printf("%d\n", counter);
    return 0;
}
