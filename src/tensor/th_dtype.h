/*
** th_dtype.h: the element types of storages and tensors.
** TH_DTYPES is the one list of them: the enum, the name, size and range
** tables, the run-time dispatch (th_generic.h), the copy matrix
** (generic/copy.c) and the Lua type tables are all expanded from it, so a
** type is one TH_DT_<X> line here plus its place in TH_DTYPES, and its
** instantiation in th_generic_all.h (every dispatch names every instance,
** so a type missing there fails to build).
**
** TH_DT_<X>(F) applies F to the type's fields:
**   F(Name, ENUM, ctype, size, floating, signed, lo, hi)
**   Name      the prefix of torch.<Name>Tensor
**   size      sizeof(ctype), as a literal so that '#if' can test it
**   floating  0 integer, 1 floating, 2 half: IEEE fp16 bits in a uint16_t,
**             a storage type without kernels (as Torch7's CPU HalfTensor):
**             it copies, converts, prints and serializes, and every other
**             op refuses it (th_dtype_need_kernels)
**   lo, hi    the integers the type holds exactly, as int64_t (for
**             floating types the +-2^mantissa range)
** TH_DTYPES(X, ctx) expands X(ctx, TH_DT_<X>) per type; 'ctx' is passed
** through untouched, so a use of the list carries its own arguments, and X
** reads a field with D(TH_DTF_NAME).
*/
#ifndef TH_DTYPE_H
#define TH_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#define TH_DT_BYTE(F)   F(Byte, TH_BYTE, uint8_t, 1, 0, 0, 0, UINT8_MAX)
#define TH_DT_CHAR(F)   F(Char, TH_CHAR, int8_t, 1, 0, 1, INT8_MIN, INT8_MAX)
#define TH_DT_SHORT(F)  F(Short, TH_SHORT, int16_t, 2, 0, 1, INT16_MIN, INT16_MAX)
#define TH_DT_INT(F)    F(Int, TH_INT, int32_t, 4, 0, 1, INT32_MIN, INT32_MAX)
#define TH_DT_LONG(F)   F(Long, TH_LONG, int64_t, 8, 0, 1, INT64_MIN, INT64_MAX)
#define TH_DT_FLOAT(F)  F(Float, TH_FLOAT, float, 4, 1, 1, -(INT64_C(1) << 24), INT64_C(1) << 24)
#define TH_DT_DOUBLE(F) F(Double, TH_DOUBLE, double, 8, 1, 1, -(INT64_C(1) << 53), INT64_C(1) << 53)
#define TH_DT_HALF(F)   F(Half, TH_HALF, uint16_t, 2, 2, 1, -(INT64_C(1) << 11), INT64_C(1) << 11)

/* in Torch7's order: Byte (masks), Char, Short, Int, Long (indices), Float,
   Double, then Half */
#define TH_DTYPES(X, ctx)                                                     \
  X(ctx, TH_DT_BYTE) X(ctx, TH_DT_CHAR) X(ctx, TH_DT_SHORT) X(ctx, TH_DT_INT) \
  X(ctx, TH_DT_LONG) X(ctx, TH_DT_FLOAT) X(ctx, TH_DT_DOUBLE) X(ctx, TH_DT_HALF)

/* field selectors: TH_DT_CHAR(TH_DTF_SIZE) -> 1 */
#define TH_DTF_NAME(N, E, T, SZ, FL, SG, LO, HI) N
#define TH_DTF_ENUM(N, E, T, SZ, FL, SG, LO, HI) E
#define TH_DTF_CTYPE(N, E, T, SZ, FL, SG, LO, HI) T
#define TH_DTF_SIZE(N, E, T, SZ, FL, SG, LO, HI) SZ
#define TH_DTF_FLOATING(N, E, T, SZ, FL, SG, LO, HI) FL
#define TH_DTF_SIGNED(N, E, T, SZ, FL, SG, LO, HI) SG
#define TH_DTF_LO(N, E, T, SZ, FL, SG, LO, HI) LO
#define TH_DTF_HI(N, E, T, SZ, FL, SG, LO, HI) HI

#define TH_DTYPE_ENUM_(c, D) D(TH_DTF_ENUM),
typedef enum { TH_DTYPES(TH_DTYPE_ENUM_, ~) TH_NDTYPES } th_dtype;

/* "Byte", "Char", ...: the prefix of torch.<X>Tensor */
extern const char *const th_dtype_name[TH_NDTYPES];
extern const size_t th_dtype_size[TH_NDTYPES];
/* 1 for Float and Double: the types with floating kernels */
extern const int th_dtype_floating[TH_NDTYPES];
/* 1 for every type with kernels (all but Half) */
extern const int th_dtype_kernels[TH_NDTYPES];
/* the integers the type holds exactly: [lo, hi] */
extern const int64_t th_dtype_lo[TH_NDTYPES];
extern const int64_t th_dtype_hi[TH_NDTYPES];

#define TH_IS_FLOATING(dt) (th_dtype_floating[dt])
/* the integer types (Byte ... Long): NaN and inf do not convert to them */
#define TH_IS_INTEGER(dt) (!TH_IS_FLOATING(dt) && (dt) != TH_HALF)

/* TH_OK, or an error for a type without kernels ("not available for
   HalfTensor ..."): every op that dispatches on dtype checks its tensors */
int th_dtype_need_kernels(th_dtype dt);

/* IEEE binary16 <-> float; to half rounds to nearest even, overflows to
   inf, keeps NaN a NaN and subnormals */
float th_half_to_float(uint16_t h);
uint16_t th_float_to_half(float f);

/* a double as int64, truncated toward zero; NaN -> 0 and values beyond
   int64 saturate (a plain cast would be undefined behaviour). A narrower
   integer type then keeps the low bits (two's complement wrap): this is
   how a floating value converts to every integer type here. */
static inline int64_t th_dtype_to_int64(double v) {
  if (!(v == v)) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

#endif
