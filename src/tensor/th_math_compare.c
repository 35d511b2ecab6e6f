/*
** th_math_compare.c: eq ne lt le gt ge (tensor with tensor or number),
** giving 1 or 0 in a ByteTensor or a tensor of the input's type; all and
** any on ByteTensors.
** A number is compared as Torch7 does, in the tensor's type (so a
** FloatTensor holding 0.1 equals 0.1), except that integer tensors
** compare exactly: x:lt(2.5) on a LongTensor is x <= 2, and a ByteTensor
** (CharTensor) is never equal to -1 (200) (a plain conversion would wrap it to 255).
*/
#include <math.h>
#include "th_math_internal.h"

#define TH_GENERIC_FILE "generic/math_compare.c"
#include "th_generic_all.h"

/* for an integer type of range [lo, hi]: rewrites (op, value) into an
   integral value within range, or a constant answer (*constant = 0 or 1) */
static void exact_integer(th_dtype dt, th_cmp_op *op, double *value, int *constant) {
  double lo = (double)th_dtype_lo[dt];
  double hi = (double)th_dtype_hi[dt];
  double v = *value;
  *constant = -1;
  if (isnan(v)) {
    *constant = *op == TH_CMP_NE;
    return;
  }
  if (v != floor(v)) {  /* no integer equals v; x < 2.5 is x <= 2, x > 2.5 is x >= 3 */
    if (*op == TH_CMP_EQ || *op == TH_CMP_NE) {
      *constant = *op == TH_CMP_NE;
      return;
    }
    if (*op == TH_CMP_LT || *op == TH_CMP_LE) *op = TH_CMP_LE, v = floor(v);
    else *op = TH_CMP_GE, v = ceil(v);
  }
  if (v < lo || v > hi) {  /* every element lies on one side of v */
    int below = v > hi;    /* x < v for every x */
    switch (*op) {
      case TH_CMP_EQ: *constant = 0; break;
      case TH_CMP_NE: *constant = 1; break;
      case TH_CMP_LT: case TH_CMP_LE: *constant = below; break;
      default: *constant = !below; break;
    }
    return;
  }
  *value = v;
}

/* one comparison, run by th_math_map_run (maybe block by block) */
typedef struct compare_call {
  th_tensor *r;
  const th_tensor *a, *b;
  th_cmp_op op;
  double value;
} compare_call;

static int compare_kernel(void *arg, th_math_span *sp) {
  const compare_call *m = arg;
  return TH_DISPATCH_ALL(m->a->dtype, compare, (sp, m->r, m->a, m->op, m->b, m->value));
}

int th_tensor_compare(th_tensor *r, const th_tensor *a, th_cmp_op op, const th_tensor *b,
                      double value) {
  if (th_dtype_need_kernels(a->dtype) != TH_OK) return TH_ERR;
  const th_tensor *in[2];
  th_math_out o;
  int rc, constant = -1;
  if ((int)op < 0 || op >= TH_NCMP) return th_error_set("unknown comparison %d", (int)op);
  if (r->dtype != TH_BYTE && r->dtype != a->dtype)
    return th_error_set("result must be a ByteTensor or a %sTensor, got a %sTensor",
                        th_dtype_name[a->dtype], th_dtype_name[r->dtype]);
  if (b != NULL && (th_math_same_type(a, b, "the second tensor") != TH_OK ||
                    th_math_same_numel(a, b) != TH_OK))
    return TH_ERR;
  if (b == NULL && !TH_IS_FLOATING(a->dtype)) exact_integer(a->dtype, &op, &value, &constant);
  in[0] = a;
  in[1] = b;
  /* a result of another type cannot share a's storage: no aliasing then */
  rc = th_math_out_begin(&o, r, a->ndim, a->size, in, b ? 2 : 1, 2, 0);
  if (rc == TH_OK) {
    if (constant >= 0) rc = th_tensor_fill(o.out, constant);
    else {
      compare_call m;
      m.r = o.out, m.a = a, m.b = b, m.op = op, m.value = value;
      rc = th_math_map_run(compare_kernel, &m);
    }
  }
  return th_math_out_end(&o, rc);
}

static int logical(const th_tensor *t, int *out, int want_all) {
  int seen = 0;  /* a zero (all) or a nonzero (any) */
  if (t->dtype != TH_BYTE)
    return th_error_set("expects a ByteTensor, got a %sTensor", th_dtype_name[t->dtype]);
  if (want_all) TH_APPLY1(const uint8_t, p, t, seen |= *p == 0;);
  else TH_APPLY1(const uint8_t, p, t, seen |= *p != 0;);
  *out = want_all ? !seen : seen;
  return TH_OK;
}

int th_tensor_all(const th_tensor *t, int *out) { return logical(t, out, 1); }
int th_tensor_any(const th_tensor *t, int *out) { return logical(t, out, 0); }
