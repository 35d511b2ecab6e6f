/* th_generic_inst.h: includes TH_GENERIC_FILE once for the type TH_GEN
   (a TH_DTYPE_<X> entry of th_dtype.h), then undefines what it defined.
   No guard: included once per type by th_generic_all.h / _floating.h. */
#define real TH_GEN(TH_DTF_CTYPE)
#define Real TH_GEN(TH_DTF_NAME)
#define TH_DTYPE TH_GEN(TH_DTF_ENUM)
#define TH_REAL_LO TH_GEN(TH_DTF_LO)
#define TH_REAL_HI TH_GEN(TH_DTF_HI)
#define TH_REAL_SIZE TH_GEN(TH_DTF_SIZE)
#define TH_REAL_FLOATING TH_GEN(TH_DTF_FLOATING)
#define TH_REAL_SIGNED TH_GEN(TH_DTF_SIGNED)
#if TH_REAL_FLOATING
#define accreal double
#else
#define accreal int64_t
#endif
/* Torch7's names, for code that singles out one type (no two types share
   floating, signed and size) */
#if TH_REAL_FLOATING
#if TH_REAL_SIZE == 4
#define TH_REAL_IS_FLOAT 1
#else
#define TH_REAL_IS_DOUBLE 1
#endif
#elif !TH_REAL_SIGNED
#define TH_REAL_IS_BYTE 1
#elif TH_REAL_SIZE == 1
#define TH_REAL_IS_CHAR 1
#elif TH_REAL_SIZE == 2
#define TH_REAL_IS_SHORT 1
#elif TH_REAL_SIZE == 4
#define TH_REAL_IS_INT 1
#else
#define TH_REAL_IS_LONG 1
#endif
#include TH_GENERIC_FILE
#undef real
#undef Real
#undef accreal
#undef TH_DTYPE
#undef TH_REAL_LO
#undef TH_REAL_HI
#undef TH_REAL_SIZE
#undef TH_REAL_FLOATING
#undef TH_REAL_SIGNED
#undef TH_REAL_IS_BYTE
#undef TH_REAL_IS_CHAR
#undef TH_REAL_IS_SHORT
#undef TH_REAL_IS_INT
#undef TH_REAL_IS_LONG
#undef TH_REAL_IS_FLOAT
#undef TH_REAL_IS_DOUBLE
#undef TH_GEN
