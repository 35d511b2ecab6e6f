/*
** th_dtype.c: names, sizes and ranges of the element types, expanded from
** TH_DTYPES (th_dtype.h), so they cannot fall out of step with the enum.
*/
#include <string.h>
#include "th_dtype.h"
#include "th_error.h"

#define NAME_(N, E, T, SZ, FL, SG, LO, HI) #N
#define ENTRY_(c, D) D(c),
#define CHECK2_(N, E, T, SZ, FL, SG, LO, HI) \
  _Static_assert(sizeof(T) == SZ, "th_dtype.h: the size of " #N " is wrong");
#define CHECK_(c, D) D(CHECK2_)

const char *const th_dtype_name[TH_NDTYPES] = {TH_DTYPES(ENTRY_, NAME_)};
const size_t th_dtype_size[TH_NDTYPES] = {TH_DTYPES(ENTRY_, TH_DTF_SIZE)};
#define FLOATING_(N, E, T, SZ, FL, SG, LO, HI) (FL) == 1
#define KERNELS_(N, E, T, SZ, FL, SG, LO, HI) (FL) != 2
const int th_dtype_floating[TH_NDTYPES] = {TH_DTYPES(ENTRY_, FLOATING_)};
const int th_dtype_kernels[TH_NDTYPES] = {TH_DTYPES(ENTRY_, KERNELS_)};
const int64_t th_dtype_lo[TH_NDTYPES] = {TH_DTYPES(ENTRY_, TH_DTF_LO)};
const int64_t th_dtype_hi[TH_NDTYPES] = {TH_DTYPES(ENTRY_, TH_DTF_HI)};

TH_DTYPES(CHECK_, ~)

int th_dtype_need_kernels(th_dtype dt) {
  if (th_dtype_kernels[dt]) return TH_OK;
  return th_error_set("not available for %sTensor (a storage type here, as in Torch7: convert it, "
                      "e.g. x:float())", th_dtype_name[dt]);
}

float th_half_to_float(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t x;
  float f;
  if (e == 0x1f) {
    x = sign | 0x7f800000u | (m << 13);                 /* inf, NaN */
  } else if (e != 0) {
    x = sign | ((e + 112) << 23) | (m << 13);           /* normal: rebias 15 -> 127 */
  } else {
    f = (float)m * 5.9604644775390625e-8f;              /* subnormal or zero: m * 2^-24 */
    return sign ? -f : f;
  }
  memcpy(&f, &x, sizeof f);
  return f;
}

/* rounds r (the kept bits) by rem (the dropped ones, 'halfway' is their midpoint) to nearest even */
static uint32_t round_even(uint32_t r, uint32_t rem, uint32_t halfway) {
  return r + (rem > halfway || (rem == halfway && (r & 1u)));
}

uint16_t th_float_to_half(float f) {
  uint32_t x, sign, ax;
  memcpy(&x, &f, sizeof x);
  sign = (x >> 16) & 0x8000u;
  ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));  /* NaN stays NaN */
  if (ax >= 0x47800000u) return (uint16_t)(sign | 0x7c00u);    /* 65536 and above, inf: inf */
  if (ax >= 0x38800000u) {                                      /* normal in half (>= 2^-14) */
    uint32_t r = ((((ax >> 23) - 112) << 10) | ((ax >> 13) & 0x3ffu));
    return (uint16_t)(sign | round_even(r, ax & 0x1fffu, 0x1000u));  /* a carry may give inf */
  }
  if (ax < 0x33000000u) return (uint16_t)sign;                  /* below 2^-25: zero */
  {                                                             /* subnormal: units of 2^-24 */
    const uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, s = 126 - e;
    return (uint16_t)(sign | round_even(m >> s, m & ((1u << s) - 1), 1u << (s - 1)));
  }
}
