/*
** th_math_blas.c: matrix products through BLAS: addmm, addmv, addr,
** baddbmm, addbmm (mm, mv, ger and bmm are these with beta = 0).
** BLAS reads a matrix whose rows or columns are contiguous: a transposed
** view is passed as it is, with the transpose flag (and a result with
** contiguous columns is computed in column-major order), so x:t() costs no
** copy. Anything else (a narrowed column, an expanded row) is copied into
** a contiguous temporary first. Results never share a storage with the
** matrices being multiplied (a temporary takes their place), and sizes
** and leading dimensions are checked to fit BLAS's int.
** With beta = 0 the result is zeroed rather than scaled, so NaN or
** garbage in an uninitialised result cannot leak through (0 * NaN).
** Float and Double share every line; only the final call differs: float
** products go through th_sgemm (th_gemm.c), double ones to cblas_dgemm.
*/
#include <cblas.h>
#include <limits.h>
#include <string.h>
#include "th_gemm.h"
#include "th_math_internal.h"

/* how BLAS can read a 2D view: 'trans' when the columns are contiguous */
typedef struct layout {
  int ok, trans, ld;
} layout;

static int64_t max1(int64_t v) { return v > 1 ? v : 1; }

static layout mat_layout(const th_tensor *t) {
  const int64_t rows = t->size[0], cols = t->size[1], s0 = t->stride[0], s1 = t->stride[1];
  layout l = {0, 0, 0};
  int64_t ld;
  if (rows > INT_MAX || cols > INT_MAX) return l;
  /* a size-1 dimension's stride is never used: any value goes */
  if ((s1 == 1 || cols == 1) && (rows == 1 || s0 >= max1(cols))) {
    ld = rows == 1 ? max1(cols) : s0;
    l.trans = 0;
  } else if ((s0 == 1 || rows == 1) && (cols == 1 || s1 >= max1(rows))) {
    ld = cols == 1 ? max1(rows) : s1;
    l.trans = 1;
  } else {
    return l;
  }
  if (ld > INT_MAX) return l;
  l.ok = 1;
  l.ld = (int)ld;
  return l;
}

/* BLAS increment of a 1D view, 0 when it must be copied first */
static int vec_inc(const th_tensor *t) {
  if (t->size[0] <= 1) return 1;
  if (t->stride[0] < 1 || t->stride[0] > INT_MAX) return 0;
  return (int)t->stride[0];
}

/* matrix i of a 3D tensor, borrowing its storage (no reference) */
static th_tensor slice(const th_tensor *t, int64_t i) {
  th_tensor v = *t;
  v.offset += i * t->stride[0];
  v.ndim = 2;
  v.size[0] = t->size[1], v.size[1] = t->size[2];
  v.stride[0] = t->stride[1], v.stride[1] = t->stride[2];
  v.size[2] = v.stride[2] = 0;
  return v;
}

/* c = beta * c, where beta = 0 zeroes */
static int scale(th_tensor *c, double beta) {
  if (beta == 0) return th_tensor_zero(c);
  if (beta == 1) return TH_OK;
  return th_tensor_scalar(c, c, TH_SC_MUL, beta);
}

/* --- the three kernels ------------------------------------------------------ */

/* c (n x p, BLAS-readable) = beta * c + alpha * a @ b */
static int gemm2d(th_tensor *c, double beta, double alpha, const th_tensor *a, const th_tensor *b) {
  const int64_t n = a->size[0], k = a->size[1], p = b->size[1];
  th_tensor ta, tb;
  layout lc = mat_layout(c), la, lb;
  int rc = TH_OK;
  if (n == 0 || p == 0) return TH_OK;
  if (k == 0) return scale(c, beta);
  if (k > INT_MAX) return th_error_set("too large for BLAS: inner size %lld", (long long)k);
  if (beta == 0 && th_tensor_zero(c) != TH_OK) return TH_ERR;
  th_tensor_init(&ta, a->dtype);
  th_tensor_init(&tb, b->dtype);
  la = mat_layout(a);
  lb = mat_layout(b);
  if (!la.ok) {
    rc = th_tensor_contiguous(&ta, a);
    a = &ta, la = mat_layout(a);
  }
  if (rc == TH_OK && !lb.ok) {
    rc = th_tensor_contiguous(&tb, b);
    b = &tb, lb = mat_layout(b);
  }
  if (rc == TH_OK) {
    /* a row-major c takes row-major operands as they are; a column-major c
       (lc.trans) reads them the other way round */
    const enum CBLAS_ORDER order = lc.trans ? CblasColMajor : CblasRowMajor;
    const enum CBLAS_TRANSPOSE tra = la.trans == lc.trans ? CblasNoTrans : CblasTrans;
    const enum CBLAS_TRANSPOSE trb = lb.trans == lc.trans ? CblasNoTrans : CblasTrans;
    if (c->dtype == TH_FLOAT)
      th_sgemm(order, tra, trb, (int)n, (int)p, (int)k, (float)alpha, th_tensor_data(a), la.ld,
               th_tensor_data(b), lb.ld, (float)beta, th_tensor_data(c), lc.ld);
    else
      cblas_dgemm(order, tra, trb, (int)n, (int)p, (int)k, alpha, th_tensor_data(a), la.ld,
                  th_tensor_data(b), lb.ld, beta, th_tensor_data(c), lc.ld);
  }
  th_tensor_clear(&ta);
  th_tensor_clear(&tb);
  return rc;
}

/* y (n, stride >= 1) = beta * y + alpha * mat @ x */
static int gemv1d(th_tensor *y, double beta, double alpha, const th_tensor *mat, const th_tensor *x) {
  const int64_t n = mat->size[0], k = mat->size[1];
  th_tensor tm, tx;
  layout lm = mat_layout(mat);
  int rc = TH_OK, incx = vec_inc(x);
  if (n == 0) return TH_OK;
  if (k == 0) return scale(y, beta);
  if (beta == 0 && th_tensor_zero(y) != TH_OK) return TH_ERR;
  th_tensor_init(&tm, mat->dtype);
  th_tensor_init(&tx, x->dtype);
  if (!lm.ok) {
    rc = th_tensor_contiguous(&tm, mat);
    mat = &tm, lm = mat_layout(mat);
  }
  if (rc == TH_OK && incx == 0) {
    rc = th_tensor_contiguous(&tx, x);
    x = &tx, incx = 1;
  }
  if (rc == TH_OK) {
    /* a column-contiguous mat is the row-major k x n matrix mat^T */
    const enum CBLAS_TRANSPOSE tr = lm.trans ? CblasTrans : CblasNoTrans;
    const int m_ = (int)(lm.trans ? k : n), n_ = (int)(lm.trans ? n : k), incy = vec_inc(y);
    if (y->dtype == TH_FLOAT)
      cblas_sgemv(CblasRowMajor, tr, m_, n_, (float)alpha, th_tensor_data(mat), lm.ld,
                  th_tensor_data(x), incx, (float)beta, th_tensor_data(y), incy);
    else
      cblas_dgemv(CblasRowMajor, tr, m_, n_, alpha, th_tensor_data(mat), lm.ld, th_tensor_data(x),
                  incx, beta, th_tensor_data(y), incy);
  }
  th_tensor_clear(&tm);
  th_tensor_clear(&tx);
  return rc;
}

/* a (n x p, BLAS-readable) += alpha * x y^T */
static int ger2d(th_tensor *a, double alpha, const th_tensor *x, const th_tensor *y) {
  const int64_t n = x->size[0], p = y->size[0];
  th_tensor tx, ty;
  const layout la = mat_layout(a);
  int rc = TH_OK, incx = vec_inc(x), incy = vec_inc(y);
  if (n == 0 || p == 0 || alpha == 0) return TH_OK;
  th_tensor_init(&tx, x->dtype);
  th_tensor_init(&ty, y->dtype);
  if (incx == 0) {
    rc = th_tensor_contiguous(&tx, x);
    x = &tx, incx = 1;
  }
  if (rc == TH_OK && incy == 0) {
    rc = th_tensor_contiguous(&ty, y);
    y = &ty, incy = 1;
  }
  if (rc == TH_OK) {
    const enum CBLAS_ORDER order = la.trans ? CblasColMajor : CblasRowMajor;
    if (a->dtype == TH_FLOAT)
      cblas_sger(order, (int)n, (int)p, (float)alpha, th_tensor_data(x), incx, th_tensor_data(y),
                 incy, th_tensor_data(a), la.ld);
    else
      cblas_dger(order, (int)n, (int)p, alpha, th_tensor_data(x), incx, th_tensor_data(y), incy,
                 th_tensor_data(a), la.ld);
  }
  th_tensor_clear(&tx);
  th_tensor_clear(&ty);
  return rc;
}

/* --- checks ---------------------------------------------------------------- */

static int need_dims(const th_tensor *t, int ndim, const char *what) {
  char b[128];
  if (t->ndim == ndim) return TH_OK;
  if (t->ndim == 0) return th_error_set("%s must be a %dD tensor, got an empty tensor", what, ndim);
  return th_error_set("%s must be a %dD tensor, got %dD %s", what, ndim, t->ndim,
                      th_tensor_sizestr(t, b, sizeof b));
}

static int size_mismatch(const th_tensor *a, const th_tensor *b) {
  char sa[128], sb[128];
  return th_error_set("size mismatch, %s and %s", th_tensor_sizestr(a, sa, sizeof sa),
                      th_tensor_sizestr(b, sb, sizeof sb));
}

/* the added tensor 'm' (what: its name) must have the product's shape */
static int need_shape(const th_tensor *m, int ndim, const int64_t *size, const char *what,
                      const char *product) {
  char sm[128], sp[128];
  int d, same = m->ndim == ndim;
  for (d = 0; same && d < ndim; d++) same = m->size[d] == size[d];
  if (same) return TH_OK;
  return th_error_set("%s has size %s, but %s has size %s", what, th_tensor_sizestr(m, sm, sizeof sm),
                      product, th_error_sizes(sp, sizeof sp, ndim, size));
}

/* floating, every tensor of a's type; m may be NULL */
static int need_types(const th_tensor *r, const th_tensor *m, const th_tensor *a,
                      const th_tensor *b, const char *bname) {
  if (th_math_need_floating(a) != TH_OK) return TH_ERR;
  if (th_math_same_type(a, b, bname) != TH_OK) return TH_ERR;
  if (m != NULL && th_math_same_type(a, m, "the added tensor") != TH_OK) return TH_ERR;
  return th_math_same_type(a, r, "the result");
}

/* the added tensor: m, or r's own contents (m NULL). With beta != 0 those
   contents are used, so r must already have the result's shape */
static int source(const th_tensor *r, const th_tensor *m, double beta, int ndim,
                  const int64_t *size, const char *what, const char *product,
                  const th_tensor **src) {
  *src = m ? m : r;
  if (m == NULL && beta == 0) return TH_OK;
  return need_shape(*src, ndim, size, what, product);
}

/* the added tensor as an input of the result: none when it is r's old
   contents and beta is 0 (mm, mv...), which are then not worth keeping */
static const th_tensor *m_or_null(const th_tensor *m, double beta, const th_tensor *src) {
  return m == NULL && beta == 0 ? NULL : src;
}

/* out = beta * src, before the product is added */
static int start(th_tensor *out, const th_tensor *src, double beta) {
  if (beta == 0) return th_tensor_zero(out);
  if (!th_math_same_view(out, src) && th_tensor_copy(out, src) != TH_OK) return TH_ERR;
  return scale(out, beta);
}

/* --- entry points ------------------------------------------------------------ */

int th_tensor_addmm(th_tensor *r, double beta, const th_tensor *m, double alpha,
                    const th_tensor *a, const th_tensor *b) {
  int64_t size[2];
  const th_tensor *src, *in[3];
  th_math_out o;
  int rc, force;
  if (need_types(r, m, a, b, "mat2") != TH_OK || need_dims(a, 2, "mat1") != TH_OK ||
      need_dims(b, 2, "mat2") != TH_OK)
    return TH_ERR;
  if (a->size[1] != b->size[0]) return size_mismatch(a, b);
  size[0] = a->size[0], size[1] = b->size[1];
  if (source(r, m, beta, 2, size, "M", "mat1 @ mat2", &src) != TH_OK) return TH_ERR;
  if (size[0] > INT_MAX || size[1] > INT_MAX)
    return th_error_set("too large for BLAS: result of size %lldx%lld", (long long)size[0],
                        (long long)size[1]);
  in[0] = m_or_null(m, beta, src), in[1] = a, in[2] = b;
  force = r->ndim == 2 && r->size[0] == size[0] && r->size[1] == size[1] && !mat_layout(r).ok;
  rc = th_math_out_begin(&o, r, 2, size, in, 3, 1, force);
  /* gemm scales by beta itself: only bring src in */
  if (rc == TH_OK && beta != 0 && !th_math_same_view(o.out, src)) rc = th_tensor_copy(o.out, src);
  if (rc == TH_OK) rc = gemm2d(o.out, beta, alpha, a, b);
  return th_math_out_end(&o, rc);
}

int th_tensor_addmv(th_tensor *r, double beta, const th_tensor *v, double alpha,
                    const th_tensor *mat, const th_tensor *x) {
  int64_t size[1];
  const th_tensor *src, *in[3];
  th_math_out o;
  int rc, force;
  if (need_types(r, v, mat, x, "vec2") != TH_OK || need_dims(mat, 2, "mat") != TH_OK ||
      need_dims(x, 1, "vec2") != TH_OK)
    return TH_ERR;
  if (mat->size[1] != x->size[0]) return size_mismatch(mat, x);
  if (mat->size[0] > INT_MAX || mat->size[1] > INT_MAX)
    return th_error_set("too large for BLAS: matrix of size %lldx%lld", (long long)mat->size[0],
                        (long long)mat->size[1]);
  size[0] = mat->size[0];
  if (source(r, v, beta, 1, size, "vec1", "mat @ vec2", &src) != TH_OK) return TH_ERR;
  in[0] = m_or_null(v, beta, src), in[1] = mat, in[2] = x;
  force = r->ndim == 1 && r->size[0] == size[0] && vec_inc(r) == 0;
  rc = th_math_out_begin(&o, r, 1, size, in, 3, 1, force);
  if (rc == TH_OK && beta != 0 && !th_math_same_view(o.out, src)) rc = th_tensor_copy(o.out, src);
  if (rc == TH_OK) rc = gemv1d(o.out, beta, alpha, mat, x);
  return th_math_out_end(&o, rc);
}

int th_tensor_addr(th_tensor *r, double beta, const th_tensor *m, double alpha,
                   const th_tensor *x, const th_tensor *y) {
  int64_t size[2];
  const th_tensor *src, *in[3];
  th_math_out o;
  int rc, force;
  if (need_types(r, m, x, y, "vec2") != TH_OK || need_dims(x, 1, "vec1") != TH_OK ||
      need_dims(y, 1, "vec2") != TH_OK)
    return TH_ERR;
  size[0] = x->size[0], size[1] = y->size[0];
  if (size[0] > INT_MAX || size[1] > INT_MAX)
    return th_error_set("too large for BLAS: result of size %lldx%lld", (long long)size[0],
                        (long long)size[1]);
  if (source(r, m, beta, 2, size, "M", "vec1 x vec2", &src) != TH_OK) return TH_ERR;
  in[0] = m_or_null(m, beta, src), in[1] = x, in[2] = y;
  force = r->ndim == 2 && r->size[0] == size[0] && r->size[1] == size[1] && !mat_layout(r).ok;
  rc = th_math_out_begin(&o, r, 2, size, in, 3, 1, force);
  if (rc == TH_OK) rc = start(o.out, src, beta);
  if (rc == TH_OK) rc = ger2d(o.out, alpha, x, y);
  return th_math_out_end(&o, rc);
}

/* checks shared by the batched products; fills the result's size (B x n x p) */
static int batch_checks(const th_tensor *r, const th_tensor *m, const th_tensor *a,
                        const th_tensor *b, int64_t *size) {
  char sa[128], sb[128];
  if (need_types(r, m, a, b, "batch2") != TH_OK || need_dims(a, 3, "batch1") != TH_OK ||
      need_dims(b, 3, "batch2") != TH_OK)
    return TH_ERR;
  if (a->size[0] != b->size[0] || a->size[2] != b->size[1])
    return th_error_set("size mismatch, %s and %s (batch x n x k and batch x k x p expected)",
                        th_tensor_sizestr(a, sa, sizeof sa), th_tensor_sizestr(b, sb, sizeof sb));
  size[0] = a->size[0], size[1] = a->size[1], size[2] = b->size[2];
  if (size[1] > INT_MAX || size[2] > INT_MAX)
    return th_error_set("too large for BLAS: matrices of size %lldx%lld", (long long)size[1],
                        (long long)size[2]);
  return TH_OK;
}

int th_tensor_baddbmm(th_tensor *r, double beta, const th_tensor *m, double alpha,
                      const th_tensor *a, const th_tensor *b) {
  int64_t size[3], i;
  const th_tensor *src, *in[3];
  th_math_out o;
  int rc, force = 0;
  if (batch_checks(r, m, a, b, size) != TH_OK) return TH_ERR;
  if (source(r, m, beta, 3, size, "M", "batch1 @ batch2", &src) != TH_OK) return TH_ERR;
  in[0] = m_or_null(m, beta, src), in[1] = a, in[2] = b;
  if (r->ndim == 3 && r->size[0] == size[0] && r->size[1] == size[1] && r->size[2] == size[2] &&
      size[0] > 0) {
    const th_tensor r0 = slice(r, 0);
    force = !mat_layout(&r0).ok;
  }
  rc = th_math_out_begin(&o, r, 3, size, in, 3, 1, force);
  if (rc == TH_OK && beta != 0 && !th_math_same_view(o.out, src)) rc = th_tensor_copy(o.out, src);
  for (i = 0; rc == TH_OK && i < size[0]; i++) {
    th_tensor oi = slice(o.out, i);
    const th_tensor ai = slice(a, i), bi = slice(b, i);
    rc = gemm2d(&oi, beta, alpha, &ai, &bi);
  }
  return th_math_out_end(&o, rc);
}

int th_tensor_addbmm(th_tensor *r, double beta, const th_tensor *m, double alpha,
                     const th_tensor *a, const th_tensor *b) {
  int64_t size[3], i;
  const th_tensor *src, *in[3];
  th_math_out o;
  int rc, force;
  if (batch_checks(r, m, a, b, size) != TH_OK) return TH_ERR;
  if (source(r, m, beta, 2, size + 1, "M", "the sum of batch1[i] @ batch2[i]", &src) != TH_OK)
    return TH_ERR;
  in[0] = m_or_null(m, beta, src), in[1] = a, in[2] = b;
  force = r->ndim == 2 && r->size[0] == size[1] && r->size[1] == size[2] && !mat_layout(r).ok;
  rc = th_math_out_begin(&o, r, 2, size + 1, in, 3, 1, force);
  if (rc == TH_OK) rc = start(o.out, src, beta);
  for (i = 0; rc == TH_OK && i < size[0]; i++) {
    const th_tensor ai = slice(a, i), bi = slice(b, i);
    rc = gemm2d(o.out, 1, alpha, &ai, &bi);
  }
  return th_math_out_end(&o, rc);
}
