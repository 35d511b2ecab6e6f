/*
** th_math_util.c: what the tensor math files share: the op name tables
** (checked against their enums at compile time, so an op cannot be added
** without its name), result placement, and argument checks.
*/
#include <string.h>
#include <math.h>
#include <stdio.h>
#include "th_math_internal.h"
#include "th_pool.h"

const char *const th_unary_name[TH_NUNARY] = {
    "neg", "abs", "sign", "sqrt", "rsqrt", "exp", "log", "log1p", "tanh", "sigmoid",
    "floor", "ceil", "round", "trunc", "frac", "cinv",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh"};
_Static_assert(sizeof th_unary_name / sizeof th_unary_name[0] == TH_NUNARY, "th_unary_name");

const char *const th_scalar_name[TH_NSCALAR] = {"add", "mul", "div", "fmod", "remainder",
                                                "cmax", "cmin", "pow", "tpow",
                                                "bitand", "bitor", "bitxor", "lshift", "rshift"};
_Static_assert(sizeof th_scalar_name / sizeof th_scalar_name[0] == TH_NSCALAR, "th_scalar_name");

const char *const th_binary_name[TH_NBINARY] = {"add", "cmul", "cdiv", "cfmod", "cremainder",
                                                "cmax", "cmin", "cpow", "lerp",
                                                "cbitand", "cbitor", "cbitxor", "clshift", "crshift"};
_Static_assert(sizeof th_binary_name / sizeof th_binary_name[0] == TH_NBINARY, "th_binary_name");

const char *const th_cmp_name[TH_NCMP] = {"eq", "ne", "lt", "le", "gt", "ge"};
_Static_assert(sizeof th_cmp_name / sizeof th_cmp_name[0] == TH_NCMP, "th_cmp_name");

const char *const th_reduce_name[TH_NREDUCE] = {"sum", "prod", "mean", "var", "std", "norm"};
_Static_assert(sizeof th_reduce_name / sizeof th_reduce_name[0] == TH_NREDUCE, "th_reduce_name");

int th_math_threads(void) { return th_pool_threads(); }

/* TH_MAP's blocks: about 16K elements each, grouped by th_pool_ranges */
#define MAP_BLOCK 16384

typedef struct map_job {
  int (*kernel)(void *, th_math_span *);
  void *arg;
  int64_t n;
} map_job;

static void map_blocks(void *arg, int64_t lo, int64_t hi) {
  const map_job *j = arg;
  th_math_span s;
  s.lo = lo * MAP_BLOCK, s.hi = hi * MAP_BLOCK < j->n ? hi * MAP_BLOCK : j->n;
  s.n = j->n, s.split = 0;
  j->kernel(j->arg, &s);
}

int th_math_map_run(int (*kernel)(void *arg, th_math_span *span), void *arg) {
  th_math_span s;
  map_job j;
  int rc;
  s.lo = 0, s.hi = -1, s.n = 0, s.split = 0;
  rc = kernel(arg, &s);
  if (rc != TH_OK || !s.split) return rc;
  j.kernel = kernel, j.arg = arg, j.n = s.n;
  th_pool_ranges(th_math_threads(), (s.n + MAP_BLOCK - 1) / MAP_BLOCK, map_blocks, &j);
  return TH_OK;
}

int th_math_same_view(const th_tensor *a, const th_tensor *b) {
  return a->storage == b->storage && a->offset == b->offset && a->dtype == b->dtype &&
         th_tensor_same_size(a, b) &&
         memcmp(a->stride, b->stride, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

static int has_shape(const th_tensor *t, int ndim, const int64_t *size) {
  int d;
  if (t->ndim != ndim) return 0;
  for (d = 0; d < ndim; d++)
    if (t->size[d] != size[d]) return 0;
  return 1;
}

/* whether a and b, views of one storage, touch no element in common: their
   spans [offset, extent) are apart (strides are never negative). optnet's
   arena puts many tensors in one storage: storage identity alone would
   send every operation between two of them through a temporary (a 4 MB
   allocation, page faults and a copy per ResNet-56 residual add) */
static int apart(const th_tensor *a, const th_tensor *b) {
  int d;
  if (th_tensor_numel(a) == 0 || th_tensor_numel(b) == 0) return 1;
  for (d = 0; d < a->ndim; d++)
    if (a->stride[d] < 0) return 0;
  for (d = 0; d < b->ndim; d++)
    if (b->stride[d] < 0) return 0;
  return th_tensor_extent(a) <= b->offset || th_tensor_extent(b) <= a->offset;
}

int th_math_out_begin(th_math_out *o, th_tensor *r, int ndim, const int64_t *size,
                      const th_tensor *const *inputs, int ninputs, int nsafe, int force_temp) {
  int k, temp = force_temp;
  o->r = r;
  o->out = r;
  th_tensor_init(&o->tmp, r->dtype);
  o->ndim = ndim;
  memcpy(o->size, size, sizeof(int64_t) * (size_t)ndim);
  for (k = 0; k < ninputs && !temp; k++) {
    const th_tensor *in = inputs[k];
    if (in == NULL || in->storage == NULL || in->storage != r->storage) continue;
    if (k < nsafe && th_math_same_view(in, r) && has_shape(r, ndim, size)) continue;
    if (has_shape(r, ndim, size) && apart(in, r)) continue;
    temp = 1;
  }
  if (temp) {
    o->out = &o->tmp;
    return th_tensor_resize(&o->tmp, ndim, size);
  }
  return th_tensor_resize(r, ndim, size);
}

int th_math_out_end(th_math_out *o, int rc) {
  if (o->out == &o->tmp) {
    if (rc == TH_OK) rc = th_tensor_resize(o->r, o->ndim, o->size);
    if (rc == TH_OK) rc = th_tensor_copy(o->r, &o->tmp);
    th_tensor_clear(&o->tmp);
  }
  return rc;
}

int th_math_check_value(th_dtype dtype, double value) {
  if (!TH_IS_INTEGER(dtype) || isfinite(value)) return TH_OK;
  return th_error_set("cannot convert %s to an integer (%sTensor)", isnan(value) ? "nan" : value > 0 ? "inf" : "-inf",
                      th_dtype_name[dtype]);
}

int th_math_writable_result(const th_tensor *r, const char *what) {
  int d;
  for (d = 0; d < r->ndim; d++)
    if (r->stride[d] == 0 && r->size[d] > 1)
      return th_error_set("%s is expanded (stride 0 in dimension %d of size %lld): its elements share memory; "
                          "pass a tensor that owns its elements", what, d + 1, (long long)r->size[d]);
  return TH_OK;
}

int th_math_need_floating(const th_tensor *t) {
  if (TH_IS_FLOATING(t->dtype)) return TH_OK;
  return th_error_set("not available for %sTensor (expects a Float or Double tensor)",
                      th_dtype_name[t->dtype]);
}

int th_math_same_type(const th_tensor *a, const th_tensor *b, const char *what) {
  if (a->dtype == b->dtype) return TH_OK;
  return th_error_set("%s must be a %sTensor like the first tensor, got a %sTensor", what,
                      th_dtype_name[a->dtype], th_dtype_name[b->dtype]);
}

/* "a tensor of size 6x12 (72 elements)", or "one of ..." for the second;
   a 1-d size alone ("72 has 72") read as a count, not a shape */
static const char *numel_desc(const th_tensor *t, int second, char *buf, size_t len) {
  char sz[96];
  if (t->ndim == 0) snprintf(buf, len, second ? "an empty one" : "an empty tensor");
  else snprintf(buf, len, "%s of size %s (%lld element%s)", second ? "one" : "a tensor",
                th_tensor_sizestr(t, sz, sizeof sz), (long long)th_tensor_numel(t),
                th_tensor_numel(t) == 1 ? "" : "s");
  return buf;
}

int th_math_same_numel(const th_tensor *a, const th_tensor *b) {
  char sa[160], sb[160];
  if (th_tensor_numel(a) == th_tensor_numel(b)) return TH_OK;
  return th_error_set("element counts differ: %s and %s", numel_desc(a, 0, sa, sizeof sa),
                      numel_desc(b, 1, sb, sizeof sb));
}

th_tensor th_math_rowview(const th_tensor *t, int dim) {
  th_tensor v = *t;
  v.size[dim] = 1;
  return v;
}
