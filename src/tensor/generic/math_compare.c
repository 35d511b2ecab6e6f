/* generic/math_compare.c: element-wise comparisons of 'real' tensors
   (included by th_math_compare.c). The result is a ByteTensor or a tensor
   of a's type; one loop per (result type, op, tensor or scalar). */
#include "../th_math_real.h"

#define CMP_S(TR, OPER) TH_MAP2(TR, rp, r, const real, ap, a, *rp = (TR)(*ap OPER v);)
#define CMP_T(TR, OPER) \
  TH_MAP3(TR, rp, r, const real, ap, a, const real, bp, b, *rp = (TR)(*ap OPER *bp);)
#define CMP_CASES(TR, LOOP)                    \
  switch (op) {                                \
    case TH_CMP_EQ: LOOP(TR, ==); break;       \
    case TH_CMP_NE: LOOP(TR, !=); break;       \
    case TH_CMP_LT: LOOP(TR, <); break;        \
    case TH_CMP_LE: LOOP(TR, <=); break;       \
    case TH_CMP_GT: LOOP(TR, >); break;        \
    default: LOOP(TR, >=); break;              \
  }

/* b NULL: compare with 'value', already exact in 'real' (see th_math_compare.c) */
static int TH_R(compare)(th_math_span *th_span, th_tensor *r, const th_tensor *a, th_cmp_op op,
                         const th_tensor *b, double value) {
  const real v = MCAST(value);
  const int64_t th_par_min = TH_MATH_PAR_CHEAP;
  if (r->dtype == TH_BYTE) {
    if (b) CMP_CASES(uint8_t, CMP_T) else CMP_CASES(uint8_t, CMP_S)
  } else {
    if (b) CMP_CASES(real, CMP_T) else CMP_CASES(real, CMP_S)
  }
  return TH_OK;
}

#undef CMP_S
#undef CMP_T
#undef CMP_CASES
