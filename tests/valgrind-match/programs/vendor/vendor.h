#ifndef VENDOR_H
#define VENDOR_H
/* libvendor: a "third-party" shared library installed as
 * /tmp/vgsupp-match/opt/vendor/lib/libvendor.so.1.2.3 (soname libvendor.so.1). */
int vendor_sum_past_end(int n);
int vendor_scaled_read(int n);
int vendor_check(const long *v, int n);
int vendor_walk(int depth, char *p);
void vendor_each(void (*cb)(short *, int), int n);
int vendor_peek_past_end(int n);
void *vendor_make_record(int n);
void *vendor_make_cached(int n);
#endif
