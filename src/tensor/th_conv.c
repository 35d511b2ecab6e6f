/*
** th_conv.c: conv2, xcorr2, conv3, xcorr3 (see th_conv.h): checks the
** forms and sizes, makes the inputs contiguous, and computes into a fresh
** contiguous tensor that is then copied into r (r may be an input, or a
** non-contiguous view). Kernels: generic/conv.c, Float and Double.
*/
#include "th_conv.h"
#include "th_generic.h"
#include "th_math_internal.h"
#include "th_pool.h"

#define TH_GENERIC_FILE "generic/conv.c"
#include "th_generic_floating.h"

static const char *dims_str(const th_tensor *t, int from, char *buf, size_t len) {
  th_tensor v = *t;
  int d;
  v.ndim = t->ndim - from;
  for (d = 0; d < v.ndim; d++) v.size[d] = t->size[d + from];
  return th_tensor_sizestr(&v, buf, len);
}

/* the spatial sizes (3D, depth 1 for nd = 2) and the output's */
static int geometry(const th_tensor *x, const th_tensor *k, int nd, int full, int64_t *xs,
                    int64_t *ks, int64_t *os, int64_t *pad) {
  const int xo = x->ndim - nd, ko = k->ndim - nd, lead = 3 - nd;
  char b1[64], b2[64];
  int d;
  for (d = 0; d < 3; d++) {
    xs[d] = d < lead ? 1 : x->size[xo + d - lead];
    ks[d] = d < lead ? 1 : k->size[ko + d - lead];
    if (xs[d] == 0 || ks[d] == 0)
      return th_error_set("empty input or kernel (input %s, kernel %s)", dims_str(x, xo, b1, sizeof b1),
                          dims_str(k, ko, b2, sizeof b2));
    if (!full && xs[d] < ks[d])
      return th_error_set("input (%s) is smaller than the kernel (%s) for a 'V' convolution",
                          dims_str(x, xo, b1, sizeof b1), dims_str(k, ko, b2, sizeof b2));
    pad[d] = full ? ks[d] - 1 : 0;
    os[d] = full ? xs[d] + ks[d] - 1 : xs[d] - ks[d] + 1;
  }
  return TH_OK;
}

int th_tensor_conv(th_tensor *r, const th_tensor *x, const th_tensor *k, int nd, int full, int flip) {
  int64_t xs[3], ks[3], os[3], pad[3], size[5];
  int64_t planes = 1, nin = 1, xstep = 0, kstep = 0, kin = 0;
  th_tensor xc, kc, out;
  int rc, d, n = 0;
  if (th_math_need_floating(x) != TH_OK) return TH_ERR;
  if (th_math_same_type(x, k, "the kernel") != TH_OK) return TH_ERR;
  if (r->dtype != x->dtype)
    return th_error_set("result must be a %sTensor like the input, got a %sTensor", th_dtype_name[x->dtype],
                        th_dtype_name[r->dtype]);
  if (th_math_writable_result(r, "result") != TH_OK) return TH_ERR;
  if (x->ndim == nd && k->ndim == nd) {
  } else if (x->ndim == nd + 1 && k->ndim == nd + 1) {  /* plane by plane */
    if (x->size[0] != k->size[0])
      return th_error_set("input and kernel must have as many planes, got %lld and %lld",
                          (long long)x->size[0], (long long)k->size[0]);
    planes = x->size[0];
    xstep = kstep = 1;
  } else if (x->ndim == nd + 1 && k->ndim == nd + 2) {  /* planes mixed by a kernel bank */
    if (k->size[1] != x->size[0])
      return th_error_set("kernel's second dimension (%lld) must be the input's number of planes (%lld)",
                          (long long)k->size[1], (long long)x->size[0]);
    planes = k->size[0];
    nin = x->size[0];
    kstep = nin;
    kin = 1;
  } else {
    return th_error_set("expects input and kernel of %dD and %dD, %dD and %dD, or %dD and %dD, got %dD and %dD",
                        nd, nd, nd + 1, nd + 1, nd + 1, nd + 2, x->ndim, k->ndim);
  }
  if (geometry(x, k, nd, full, xs, ks, os, pad) != TH_OK) return TH_ERR;
  if (x->ndim > nd) size[n++] = planes;
  for (d = 3 - nd; d < 3; d++) size[n++] = os[d];
  th_tensor_init(&xc, x->dtype);
  th_tensor_init(&kc, x->dtype);
  th_tensor_init(&out, x->dtype);
  rc = th_tensor_contiguous(&xc, x);
  if (rc == TH_OK) rc = th_tensor_contiguous(&kc, k);
  if (rc == TH_OK) rc = th_tensor_resize(&out, n, size);
  if (rc == TH_OK)
    rc = TH_DISPATCH_FLOATING(x->dtype, conv, (&out, &xc, &kc, planes, nin, xstep, kstep, kin, xs, ks, os, pad, flip),
                              "conv");
  /* r is resized only now: it may be x or k */
  if (rc == TH_OK) rc = th_tensor_resize(r, n, size);
  if (rc == TH_OK) rc = th_tensor_copy(r, &out);
  th_tensor_clear(&xc);
  th_tensor_clear(&kc);
  th_tensor_clear(&out);
  return rc;
}
