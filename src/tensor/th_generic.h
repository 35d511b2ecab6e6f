/*
** th_generic.h: one kernel source, instantiated per element type.
** A generic file is written with 'real' (the element type), 'accreal'
** (the type sums accumulate in: double for floating types, int64 for
** integers, as Torch7's accreal), 'TH_DTYPE' (the th_dtype value) and
** TH_R(name), which appends the type name: TH_R(add_kernel) ->
** add_kernel_Float. Properties for '#if': TH_REAL_FLOATING,
** TH_REAL_SIGNED, TH_REAL_SIZE (bytes); TH_REAL_LO / TH_REAL_HI are the
** integer range (th_dtype.h).
**
**   #define TH_GENERIC_FILE "generic/copy.c"
**   #include "th_generic_all.h"        (every type with kernels: all but Half)
**   #include "th_generic_floating.h"   (Float, Double)
**
** TH_DISPATCH_* then calls the instance matching a run-time dtype, so
** each op dispatches on dtype in exactly one place. Both are expanded from
** TH_DTYPES: a type with kernels but without its instance does not build.
*/
#ifndef TH_GENERIC_H
#define TH_GENERIC_H

#include "th_dtype.h"
#include "th_error.h"

#define TH_CAT_(a, b) a##_##b
#define TH_CAT(a, b) TH_CAT_(a, b)
#define TH_R(name) TH_CAT(name, Real)

#define TH_EXPAND_(...) __VA_ARGS__
#define TH_CALL_(m, a) m a
#define TH_IF_0(x)
#define TH_IF_1(x) x
#define TH_IF_(c, x) TH_CAT(TH_IF, c)(x)

/* one case of a dispatch: ctx is (dtype, name, args) */
#define TH_DISPATCH_CASE2_(N, E, dtype, name, args) (dtype) == E ? TH_CAT(name, N) args :
#define TH_DISPATCH_KCASE_(ctx, D) \
  TH_CALL_(TH_DISPATCH_CASE2_, (D(TH_DTF_NAME), D(TH_DTF_ENUM), TH_EXPAND_ ctx))
/* types with kernels (floating 0 or 1), floating kernels (1) */
#define TH_KERNELS_0 1
#define TH_KERNELS_1 1
#define TH_KERNELS_2 0
#define TH_FKERNELS_0 0
#define TH_FKERNELS_1 1
#define TH_FKERNELS_2 0
#define TH_DISPATCH_CASE_(ctx, D) \
  TH_IF_(TH_CAT(TH_KERNELS, D(TH_DTF_FLOATING)), TH_DISPATCH_KCASE_(ctx, D))
#define TH_DISPATCH_FCASE_(ctx, D) \
  TH_IF_(TH_CAT(TH_FKERNELS, D(TH_DTF_FLOATING)), TH_DISPATCH_KCASE_(ctx, D))

/* calls name_<Type> args for the run-time dtype; 'name' may itself be a
   macro. Types without kernels (Half) have no instance: every caller has
   refused them first (th_dtype_need_kernels), and the chain ends in the
   Byte instance only so that it is an expression of one type. */
#define TH_DISPATCH_ALL(dtype, name, args) \
  (TH_DTYPES(TH_DISPATCH_CASE_, (dtype, name, args)) TH_CAT(name, Byte) args)

#define TH_DISPATCH_FLOATING(dtype, name, args, opname)                                   \
  (TH_DTYPES(TH_DISPATCH_FCASE_, (dtype, name, args))                                     \
   th_error_set("%s: not available for %sTensor (expects a Float or Double tensor)", \
                opname, th_dtype_name[dtype]))

#endif
