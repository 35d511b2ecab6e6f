/*
** th_math_real.h: per-type helpers for the generic math sources, included
** (no guard: once per type) at the top of each generic/math_*.c after
** th_generic.h has defined 'real'. Every name is undefined first, so the
** next type's inclusion redefines it cleanly.
**   M_FLOATING     1 for float and double
**   MF(f)          the libm function for 'real': MF(exp) -> expf / exp
**   MCAST(v)       a double as 'real'; integers saturate instead of UB
**   W_ADD/SUB/MUL  arithmetic that wraps for int64 (no signed overflow UB)
**   W_NEG          negation, wrapping for int64
**   M_ISNAN(x)     0 for integer types
*/
#include <math.h>
#include <stdint.h>

#undef M_FLOATING
#undef MF
#undef MCAST
#undef W_ADD
#undef W_SUB
#undef W_MUL
#undef W_NEG
#undef M_ISNAN

#if defined(TH_REAL_IS_FLOAT)
#define M_FLOATING 1
#define MF(fn) fn##f
#elif defined(TH_REAL_IS_DOUBLE)
#define M_FLOATING 1
#define MF(fn) fn
#else
#define M_FLOATING 0
#endif

#if M_FLOATING
#define MCAST(v) ((real)(v))
#define W_ADD(x, y) ((x) + (y))
#define W_SUB(x, y) ((x) - (y))
#define W_MUL(x, y) ((x) * (y))
#define W_NEG(x) (-(x))
#define M_ISNAN(x) isnan(x)
#else
#define MCAST(v) ((real)th_math_to_int64(v))
/* uint64 arithmetic is modular; converting back is two's complement on
   every compiler we target. Bytes promote to int and wrap on the store. */
#define W_ADD(x, y) ((int64_t)((uint64_t)(x) + (uint64_t)(y)))
#define W_SUB(x, y) ((int64_t)((uint64_t)(x) - (uint64_t)(y)))
#define W_MUL(x, y) ((int64_t)((uint64_t)(x) * (uint64_t)(y)))
#define W_NEG(x) ((int64_t)(0u - (uint64_t)(x)))
#define M_ISNAN(x) 0
#endif
