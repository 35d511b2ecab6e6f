/*
** th_checked.h: overflow-checked int64 arithmetic for sizes, strides,
** offsets and indices. Signed overflow is undefined behaviour in C, so a
** product or sum that comes from user input is computed here, and the
** caller turns an overflow into an error before using the result.
** Each function returns 1 on overflow (the stored value is then unusable),
** 0 otherwise.
*/
#ifndef TH_CHECKED_H
#define TH_CHECKED_H

#include <stdint.h>

static inline int th_mul_overflows(int64_t a, int64_t b, int64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}

static inline int th_add_overflows(int64_t a, int64_t b, int64_t *r) {
  return __builtin_add_overflow(a, b, r);
}

static inline int th_sub_overflows(int64_t a, int64_t b, int64_t *r) {
  return __builtin_sub_overflow(a, b, r);
}

/* the element count of sizes[0..n-1] (n >= 1, sizes >= 0). A size of 0
   anywhere makes it 0 even when the other sizes' product would overflow
   (an empty view may keep huge sizes), so zeros are looked for first. */
static inline int th_numel_overflows(int n, const int64_t *size, int64_t *r) {
  int64_t p = 1;
  int d;
  for (d = 0; d < n; d++)
    if (size[d] == 0) {
      *r = 0;
      return 0;
    }
  for (d = 0; d < n; d++)
    if (__builtin_mul_overflow(p, size[d], &p)) return 1;
  *r = p;
  return 0;
}

#endif
