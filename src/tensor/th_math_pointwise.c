/*
** th_math_pointwise.c: element-wise math (maps, tensor-scalar and
** tensor-tensor ops, addcmul/addcdiv, clamp) and the fills range,
** linspace and eye.
** Each entry point checks types and element counts, places the result
** (th_math_out: r itself, or a temporary when r overlaps an input in
** another layout), then dispatches on the dtype once. Nothing is written
** when a check fails. The kernels are in generic/math_pointwise.c.
*/
#include <math.h>
#include "th_math_internal.h"
#include "th_pool.h"
#include "th_cpu.h"

#define TH_GENERIC_FILE "generic/math_pointwise.c"
#include "th_generic_all.h"

/* one element-wise call, run by th_math_map_run (maybe block by block) */
typedef enum { MAP_UNARY, MAP_SCALAR, MAP_CLAMP, MAP_BINARY, MAP_ADDC } map_kind;
typedef struct map_call {
  map_kind kind;
  th_tensor *r;
  const th_tensor *a, *b, *c;
  int op;
  double v1, v2;
} map_call;

static int map_kernel(void *arg, th_math_span *sp) {
  const map_call *m = arg;
  switch (m->kind) {
    case MAP_UNARY: return TH_DISPATCH_ALL(m->a->dtype, unary, (sp, m->r, m->a, (th_unary_op)m->op));
    case MAP_SCALAR:
      return TH_DISPATCH_ALL(m->a->dtype, scalar, (sp, m->r, m->a, (th_scalar_op)m->op, m->v1));
    case MAP_CLAMP: return TH_DISPATCH_ALL(m->a->dtype, clamp, (sp, m->r, m->a, m->v1, m->v2));
    case MAP_BINARY:
      return TH_DISPATCH_ALL(m->a->dtype, binary, (sp, m->r, m->a, (th_binary_op)m->op, m->b, m->v1));
    default:
      return TH_DISPATCH_ALL(m->a->dtype, addc, (sp, m->r, m->a, m->v1, m->b, m->c, m->op));
  }
}

/* runs a call of 'kind' on result r */
static int map_run(map_kind kind, th_tensor *r, const th_tensor *a, int op, const th_tensor *b,
                   const th_tensor *c, double v1, double v2) {
  map_call m;
  m.kind = kind, m.r = r, m.a = a, m.b = b, m.c = c, m.op = op, m.v1 = v1, m.v2 = v2;
  return th_math_map_run(map_kernel, &m);
}

static int check_result(const th_tensor *r, const th_tensor *a) {
  if (r->dtype == a->dtype) return TH_OK;
  return th_error_set("result must be a %sTensor like the input, got a %sTensor",
                      th_dtype_name[a->dtype], th_dtype_name[r->dtype]);
}

/* Torch7 refuses bit operations on floating tensors (shifts multiply instead) */
static int need_integer(const th_tensor *t) {
  if (!TH_IS_FLOATING(t->dtype)) return TH_OK;
  return th_error_set("not available for %sTensor (integer types only)", th_dtype_name[t->dtype]);
}

int th_tensor_unary(th_tensor *r, const th_tensor *a, th_unary_op op) {
  if (th_dtype_need_kernels(a->dtype) != TH_OK) return TH_ERR;
  const th_tensor *in[1];
  th_math_out o;
  int rc;
  if ((int)op < 0 || op >= TH_NUNARY) return th_error_set("unknown unary op %d", (int)op);
  if (op >= TH_UN_NINTEGER && th_math_need_floating(a) != TH_OK) return TH_ERR;
  if (check_result(r, a) != TH_OK) return TH_ERR;
  in[0] = a;
  rc = th_math_out_begin(&o, r, a->ndim, a->size, in, 1, 1, 0);
  if (rc == TH_OK) rc = map_run(MAP_UNARY, o.out, a, (int)op, NULL, NULL, 0, 0);
  return th_math_out_end(&o, rc);
}

int th_tensor_scalar(th_tensor *r, const th_tensor *a, th_scalar_op op, double value) {
  if (th_dtype_need_kernels(a->dtype) != TH_OK) return TH_ERR;
  const th_tensor *in[1];
  th_math_out o;
  int rc;
  if ((int)op < 0 || op >= TH_NSCALAR) return th_error_set("unknown scalar op %d", (int)op);
  if ((op == TH_SC_POW || op == TH_SC_TPOW) && th_math_need_floating(a) != TH_OK) return TH_ERR;
  if (th_math_check_value(a->dtype, value) != TH_OK) return TH_ERR;
  if (op >= TH_SC_BITAND && op <= TH_SC_BITXOR && need_integer(a) != TH_OK) return TH_ERR;
  /* the bit operations (new here) refuse an expanded result, as LAPACK and
     conv do; the older arithmetic keeps Torch7's writes through stride 0 */
  if (op >= TH_SC_BITAND && op <= TH_SC_RSHIFT && th_math_writable_result(r, "result") != TH_OK) return TH_ERR;
  /* a mask of 1.5 has no bits: the cast would silently make it 1 */
  if (op >= TH_SC_BITAND && op <= TH_SC_BITXOR && value != floor(value))
    return th_error_set("mask must be an integer, got %g", value);
  /* and fit the element's bits, signed or unsigned (-1 and 255 for a byte);
     2^62 on an IntTensor was cast to 0 */
  if (op >= TH_SC_BITAND && op <= TH_SC_BITXOR && th_dtype_size[a->dtype] < 8) {
    const int bits = (int)(8 * th_dtype_size[a->dtype]);
    if (value < -ldexp(1, bits - 1) || value >= ldexp(1, bits))
      return th_error_set("mask %.0f does not fit the %d bits of a %sTensor", value, bits, th_dtype_name[a->dtype]);
  }
  if (op >= TH_SC_BITAND && op <= TH_SC_BITXOR && (value < -0x1p63 || value >= 0x1p64))
    return th_error_set("mask %.0f does not fit 64 bits", value);
  if ((op == TH_SC_LSHIFT || op == TH_SC_RSHIFT) && !TH_IS_FLOATING(a->dtype) &&
      (value < 0 || value != floor(value)))
    return th_error_set("shift count must be a non-negative integer, got %g", value);
  if (check_result(r, a) != TH_OK) return TH_ERR;
  in[0] = a;
  rc = th_math_out_begin(&o, r, a->ndim, a->size, in, 1, 1, 0);
  if (rc == TH_OK) rc = map_run(MAP_SCALAR, o.out, a, (int)op, NULL, NULL, value, 0);
  return th_math_out_end(&o, rc);
}

int th_tensor_clamp(th_tensor *r, const th_tensor *a, double lo, double hi) {
  if (th_dtype_need_kernels(a->dtype) != TH_OK) return TH_ERR;
  const th_tensor *in[1];
  th_math_out o;
  int rc;
  if (check_result(r, a) != TH_OK) return TH_ERR;
  if (th_math_check_value(a->dtype, lo) != TH_OK || th_math_check_value(a->dtype, hi) != TH_OK) return TH_ERR;
  in[0] = a;
  rc = th_math_out_begin(&o, r, a->ndim, a->size, in, 1, 1, 0);
  if (rc == TH_OK) rc = map_run(MAP_CLAMP, o.out, a, 0, NULL, NULL, lo, hi);
  return th_math_out_end(&o, rc);
}

int th_tensor_binary(th_tensor *r, const th_tensor *a, th_binary_op op, const th_tensor *b,
                     double value) {
  if (th_dtype_need_kernels(a->dtype) != TH_OK) return TH_ERR;
  const th_tensor *in[2];
  th_math_out o;
  int rc;
  if ((int)op < 0 || op >= TH_NBINARY) return th_error_set("unknown binary op %d", (int)op);
  if ((op == TH_BI_POW || op == TH_BI_LERP) && th_math_need_floating(a) != TH_OK) return TH_ERR;
  if (op >= TH_BI_BITAND && op <= TH_BI_BITXOR && need_integer(a) != TH_OK) return TH_ERR;
  if (op >= TH_BI_BITAND && op <= TH_BI_RSHIFT && th_math_writable_result(r, "result") != TH_OK) return TH_ERR;
  if (th_math_check_value(a->dtype, value) != TH_OK) return TH_ERR;
  if (th_math_same_type(a, b, "the second tensor") != TH_OK || check_result(r, a) != TH_OK ||
      th_math_same_numel(a, b) != TH_OK)
    return TH_ERR;
  in[0] = a;
  in[1] = b;
  rc = th_math_out_begin(&o, r, a->ndim, a->size, in, 2, 2, 0);
  if (rc == TH_OK) rc = map_run(MAP_BINARY, o.out, a, (int)op, b, NULL, value, 0);
  return th_math_out_end(&o, rc);
}

static int addc(th_tensor *r, const th_tensor *a, double value, const th_tensor *b,
                const th_tensor *c, int divide) {
  if (th_dtype_need_kernels(a->dtype) != TH_OK) return TH_ERR;
  const th_tensor *in[3];
  th_math_out o;
  int rc;
  if (th_math_check_value(a->dtype, value) != TH_OK) return TH_ERR;
  if (th_math_same_type(a, b, "tensor1") != TH_OK || th_math_same_type(a, c, "tensor2") != TH_OK ||
      check_result(r, a) != TH_OK || th_math_same_numel(a, b) != TH_OK ||
      th_math_same_numel(a, c) != TH_OK)
    return TH_ERR;
  in[0] = a;
  in[1] = b;
  in[2] = c;
  rc = th_math_out_begin(&o, r, a->ndim, a->size, in, 3, 3, 0);
  if (rc == TH_OK) rc = map_run(MAP_ADDC, o.out, a, divide, b, c, value, 0);
  return th_math_out_end(&o, rc);
}

int th_tensor_addcmul(th_tensor *r, const th_tensor *a, double value, const th_tensor *b,
                      const th_tensor *c) {
  return addc(r, a, value, b, c, 0);
}

int th_tensor_addcdiv(th_tensor *r, const th_tensor *a, double value, const th_tensor *b,
                      const th_tensor *c) {
  return addc(r, a, value, b, c, 1);
}

/* --- fills ------------------------------------------------------------------ */

/* a result that already holds n elements keeps its shape and strides
   (Torch7: x:narrow(2, 2, 2):linspace(0, 3, 4) fills the view in order);
   resizing a view would write outside it */
static int fill_shape(th_tensor *r, int64_t n) {
  if (r->storage != NULL && th_tensor_numel(r) == n) return TH_OK;
  return th_tensor_resize1d(r, n);
}

int th_tensor_range(th_tensor *r, double a, double b, double step) {
  if (th_dtype_need_kernels(r->dtype) != TH_OK) return TH_ERR;
  double n;
  if (!isfinite(a) || !isfinite(b) || !isfinite(step))
    return th_error_set("bounds and step must be finite, got %g, %g, %g", a, b, step);
  if (step == 0) return th_error_set("step must be nonzero");
  if ((step > 0 && b < a) || (step < 0 && b > a))
    return th_error_set("upper bound %g and lower bound %g are incoherent with step sign (%g)", b, a,
                        step);
  n = floor((b - a) / step) + 1;
  if (n > 9.0e18) return th_error_set("too many elements (%g)", n);
  if (fill_shape(r, (int64_t)n) != TH_OK) return TH_ERR;
  return TH_DISPATCH_ALL(r->dtype, range, (r, a, step));
}

int th_tensor_linspace(th_tensor *r, double a, double b, int64_t n) {
  if (th_dtype_need_kernels(r->dtype) != TH_OK) return TH_ERR;
  if (!isfinite(a) || !isfinite(b)) return th_error_set("bounds must be finite, got %g and %g", a, b);
  if (n < 1 || (n == 1 && a != b))
    return th_error_set("invalid number of points %lld (at least 2, or 1 when both ends are equal)",
                        (long long)n);
  if (fill_shape(r, n) != TH_OK) return TH_ERR;
  return TH_DISPATCH_ALL(r->dtype, range, (r, a, n > 1 ? (b - a) / (double)(n - 1) : 0.0));
}

int th_tensor_eye(th_tensor *r, int64_t n, int64_t m) {
  if (th_dtype_need_kernels(r->dtype) != TH_OK) return TH_ERR;
  if (n < 1 || m < 1)
    return th_error_set("sizes must be positive, got %lldx%lld", (long long)n, (long long)m);
  if (th_tensor_resize2d(r, n, m) != TH_OK) return TH_ERR;
  return TH_DISPATCH_ALL(r->dtype, eye, (r));
}
