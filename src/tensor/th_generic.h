/*
** th_generic.h: one kernel source, instantiated per element type.
** A generic file is written with 'real' (the element type), 'accreal'
** (the type sums accumulate in: double for floating types, int64 for
** integers), 'TH_DTYPE' (the th_dtype value) and TH_R(name), which
** appends the type name: TH_R(add_kernel) -> add_kernel_Float.
**
**   #define TH_GENERIC_FILE "generic/copy.c"
**   #include "th_generic_all.h"        (Byte, Long, Float, Double)
**   #include "th_generic_floating.h"   (Float, Double)
**
** TH_DISPATCH_* then calls the instance matching a run-time dtype, so
** each op dispatches on dtype in exactly one place.
*/
#ifndef TH_GENERIC_H
#define TH_GENERIC_H

#include "th_dtype.h"
#include "th_error.h"

#define TH_CAT_(a, b) a##_##b
#define TH_CAT(a, b) TH_CAT_(a, b)
#define TH_R(name) TH_CAT(name, Real)

/* calls name_<Type> args for the run-time dtype; 'name' may itself be a macro */
#define TH_DISPATCH_ALL(dtype, name, args)                     \
  ((dtype) == TH_FLOAT    ? TH_CAT(name, Float) args           \
   : (dtype) == TH_DOUBLE ? TH_CAT(name, Double) args          \
   : (dtype) == TH_LONG   ? TH_CAT(name, Long) args            \
                          : TH_CAT(name, Byte) args)

#define TH_DISPATCH_FLOATING(dtype, name, args, opname)        \
  ((dtype) == TH_FLOAT    ? TH_CAT(name, Float) args           \
   : (dtype) == TH_DOUBLE ? TH_CAT(name, Double) args          \
   : th_error_set("%s: not available for %sTensor (expects a Float or Double tensor)", \
                  opname, th_dtype_name[dtype]))

#endif
