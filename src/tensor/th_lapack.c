/*
** th_lapack.c: linear algebra through LAPACK (see th_lapack.h for the
** contract). Each operation: check the arguments, copy every input into a
** fresh column-major work buffer (rejecting NaN and infinities, on which
** LAPACK's iterations give no defined answer), run the per-type routine of
** generic/lapack.c, check its outputs are finite (an overflow is an
** error, not an answer), and only then place the buffers into the results. So
** an input is never written, results may be inputs, and a failing call
** leaves every result as it was.
** LAPACK is called through its Fortran symbols (OpenBLAS exports them);
** each character argument has a hidden length argument at the end, passed
** as gfortran expects.
*/
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "th_alloc.h"
#include "th_error.h"
#include "th_generic.h"
#include "th_lapack.h"
#include "th_math_internal.h"

#define TH_LAPACK_DECLS(real, p)                                                              \
  void p##gesv_(const int *n, const int *nrhs, real *a, const int *lda, int *ipiv, real *b,   \
                const int *ldb, int *info);                                                   \
  void p##trtrs_(const char *uplo, const char *trans, const char *diag, const int *n,          \
                 const int *nrhs, const real *a, const int *lda, real *b, const int *ldb,     \
                 int *info, size_t, size_t, size_t);                                          \
  void p##gels_(const char *trans, const int *m, const int *n, const int *nrhs, real *a,       \
                const int *lda, real *b, const int *ldb, real *work, const int *lwork,         \
                int *info, size_t);                                                           \
  void p##syev_(const char *jobz, const char *uplo, const int *n, real *a, const int *lda,     \
                real *w, real *work, const int *lwork, int *info, size_t, size_t);            \
  void p##geev_(const char *jobvl, const char *jobvr, const int *n, real *a, const int *lda,   \
                real *wr, real *wi, real *vl, const int *ldvl, real *vr, const int *ldvr,     \
                real *work, const int *lwork, int *info, size_t, size_t);                     \
  void p##gesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, real *a,     \
                 const int *lda, real *s, real *u, const int *ldu, real *vt, const int *ldvt, \
                 real *work, const int *lwork, int *info, size_t, size_t);                    \
  void p##getrf_(const int *m, const int *n, real *a, const int *lda, int *ipiv, int *info);  \
  void p##getri_(const int *n, real *a, const int *lda, const int *ipiv, real *work,          \
                 const int *lwork, int *info);                                                \
  void p##potrf_(const char *uplo, const int *n, real *a, const int *lda, int *info, size_t); \
  void p##potrs_(const char *uplo, const int *n, const int *nrhs, const real *a,              \
                 const int *lda, real *b, const int *ldb, int *info, size_t);                 \
  void p##potri_(const char *uplo, const int *n, real *a, const int *lda, int *info, size_t); \
  void p##pstrf_(const char *uplo, const int *n, real *a, const int *lda, int *piv,           \
                 int *rank, const real *tol, real *work, int *info, size_t);                  \
  void p##geqrf_(const int *m, const int *n, real *a, const int *lda, real *tau, real *work,  \
                 const int *lwork, int *info);                                                \
  void p##orgqr_(const int *m, const int *n, const int *k, real *a, const int *lda,           \
                 const real *tau, real *work, const int *lwork, int *info);                   \
  void p##ormqr_(const char *side, const char *trans, const int *m, const int *n,             \
                 const int *k, const real *a, const int *lda, const real *tau, real *c,       \
                 const int *ldc, real *work, const int *lwork, int *info, size_t, size_t);

TH_LAPACK_DECLS(float, s)
TH_LAPACK_DECLS(double, d)

#define TH_GENERIC_FILE "generic/lapack.c"
#include "th_generic_floating.h"

/* calls the Float or Double instance; every caller checked the dtype first */
#define LAPACK_CALL(dtype, name, args) TH_DISPATCH_FLOATING(dtype, name, args, "LAPACK")

/* --- checks ------------------------------------------------------------------ */

static int floating(const th_tensor *a, const char *name) {
  if (TH_IS_FLOATING(a->dtype)) return TH_OK;
  return th_error_set("not available for %sTensor %s (expects a Float or Double tensor)",
                      th_dtype_name[a->dtype], name);
}

static int same_type(const th_tensor *a, const th_tensor *t, const char *name) {
  if (t->dtype == a->dtype) return TH_OK;
  return th_error_set("%s must be a %sTensor like A, got a %sTensor", name,
                      th_dtype_name[a->dtype], th_dtype_name[t->dtype]);
}

/* a 2D (or, with allow_vec, 1D) non-empty tensor whose sizes fit LAPACK's int */
static int matrix(const th_tensor *t, const char *name, int allow_vec) {
  char b[128];
  int d;
  if (t->ndim == 0) return th_error_set("%s must be a 2D matrix, got an empty tensor", name);
  if (t->ndim != 2 && !(allow_vec && t->ndim == 1))
    return th_error_set("%s must be a %s, got a %dD tensor of size %s", name,
                        allow_vec ? "1D or 2D tensor" : "2D matrix", t->ndim,
                        th_tensor_sizestr(t, b, sizeof b));
  for (d = 0; d < t->ndim; d++) {
    if (t->size[d] == 0)
      return th_error_set("%s must not be empty, got size %s", name, th_tensor_sizestr(t, b, sizeof b));
    if (t->size[d] > INT_MAX / 2)
      return th_error_set("%s of size %s is too large for LAPACK", name, th_tensor_sizestr(t, b, sizeof b));
  }
  return TH_OK;
}

static int square(const th_tensor *a, const char *name) {
  char b[128];
  if (matrix(a, name, 0) != TH_OK) return TH_ERR;
  if (a->size[0] == a->size[1]) return TH_OK;
  return th_error_set("%s must be square, got %s", name, th_tensor_sizestr(a, b, sizeof b));
}

/* the right-hand side B: 1D or 2D, with as many rows as A */
static int rhs(const th_tensor *b, const th_tensor *a) {
  char s[128];
  if (matrix(b, "B", 1) != TH_OK || same_type(a, b, "B") != TH_OK) return TH_ERR;
  if (b->size[0] == a->size[0]) return TH_OK;
  return th_error_set("B must have as many rows as A (%lld), got size %s", (long long)a->size[0],
                      th_tensor_sizestr(b, s, sizeof s));
}

/* results: A's type, and no two sharing a storage */
static int results(const th_tensor *a, th_tensor *const *r, int n) {
  int i, j;
  char what[32];
  for (i = 0; i < n; i++) {
    if (r[i]->dtype != a->dtype)
      return th_error_set("result %d must be a %sTensor like A, got a %sTensor", i + 1,
                          th_dtype_name[a->dtype], th_dtype_name[r[i]->dtype]);
    snprintf(what, sizeof what, "result %d", i + 1);
    if (th_math_writable_result(r[i], what) != TH_OK) return TH_ERR;
    for (j = 0; j < i; j++)
      if (r[i] == r[j] || (r[i]->storage != NULL && r[i]->storage == r[j]->storage))
        return th_error_set("results %d and %d share a storage: pass distinct tensors", j + 1, i + 1);
  }
  return TH_OK;
}

static int option(char c, const char *allowed, const char *what) {
  if (c != '\0' && strchr(allowed, c) != NULL) return TH_OK;
  return th_error_set("%s must be '%c' or '%c', got '%c'", what, allowed[0], allowed[1], c);
}

/* --- work buffers -------------------------------------------------------------- */

static int64_t rows_of(const th_tensor *t) { return t->size[0]; }
static int64_t cols_of(const th_tensor *t) { return t->ndim == 1 ? 1 : t->size[1]; }

/* w = a new column-major rows x cols matrix (strides 1, rows) */
static int colmajor_new(th_tensor *w, th_dtype dt, int64_t rows, int64_t cols) {
  th_tensor_init(w, dt);
  if (th_tensor_resize2d(w, cols, rows) != TH_OK) return TH_ERR;
  return th_tensor_transpose(w, w, 0, 1);
}

/* w = column-major copy of src (a 1D src is one column) padded with zero
   rows up to 'rows'; src must hold only finite numbers */
static int colmajor_copy(th_tensor *w, const th_tensor *src, int64_t rows, const char *name) {
  th_tensor top, s2 = *src;  /* views borrowing storages, no reference */
  if (colmajor_new(w, src->dtype, rows, cols_of(src)) != TH_OK) return TH_ERR;
  if (src->ndim == 1) {
    s2.ndim = 2;
    s2.size[1] = 1;
    s2.stride[1] = 1;
  }
  top = *w;
  top.size[0] = rows_of(src);
  if ((rows > rows_of(src) && th_tensor_zero(w) != TH_OK) || th_tensor_copy(&top, &s2) != TH_OK)
    return TH_ERR;
  if (!LAPACK_CALL(src->dtype, la_finite, (th_tensor_data(w), th_tensor_numel(w))))
    return th_error_set("%s contains NaN or infinite values", name);
  return TH_OK;
}

/* a contiguous copy of a 1D tensor (tau) holding only finite numbers */
static int vector_copy(th_tensor *w, const th_tensor *src, const char *name) {
  th_tensor_init(w, src->dtype);
  if (th_tensor_resize1d(w, src->size[0]) != TH_OK || th_tensor_copy(w, src) != TH_OK)
    return TH_ERR;
  if (!LAPACK_CALL(src->dtype, la_finite, (th_tensor_data(w), th_tensor_numel(w))))
    return th_error_set("%s contains NaN or infinite values", name);
  return TH_OK;
}

static int vector_new(th_tensor *w, th_dtype dt, int64_t n) {
  th_tensor_init(w, dt);
  return th_tensor_resize1d(w, n);
}

/* puts work buffer (or view of one) w into result r by th_lapack.h's rule;
   'colmajor' results (Torch7's checkTransposed ones) also turn a contiguous
   r column-major, as Torch7 does with a result it reuses */
static int place_as(th_tensor *r, const th_tensor *w, int colmajor) {
  if (r->storage == NULL && r->ndim == 0) {
    th_tensor_set_tensor(r, w);
    return TH_OK;
  }
  if (colmajor && w->ndim == 2 && (!th_tensor_same_size(r, w) || th_tensor_is_contiguous(r)) &&
      !(th_tensor_same_size(r, w) && r->stride[0] == 1 && r->stride[1] == w->size[0])) {
    if (th_tensor_resize2d(r, w->size[1], w->size[0]) != TH_OK ||
        th_tensor_transpose(r, r, 0, 1) != TH_OK)
      return TH_ERR;
  } else if (!th_tensor_same_size(r, w) && th_tensor_resize(r, w->ndim, w->size) != TH_OK) {
    return TH_ERR;
  }
  return th_tensor_copy(r, w);
}

/* LAPACK's outputs are finite unless something overflowed (entries near the
   type's limit, a nearly singular matrix): an error rather than inf or NaN
   handed back as an answer. w: work buffers, contiguous or column-major
   (stride 1 down a column), possibly narrowed. */
static int finite_view(const th_tensor *w) {
  const char *base = th_tensor_data(w);
  const size_t esize = th_dtype_size[w->dtype];
  int64_t j;
  if (th_tensor_is_contiguous(w)) return LAPACK_CALL(w->dtype, la_finite, ((const void *)base, th_tensor_numel(w)));
  for (j = 0; j < w->size[1]; j++)
    if (!LAPACK_CALL(w->dtype, la_finite, ((const void *)(base + (size_t)(j * w->stride[1]) * esize), w->size[0])))
      return 0;
  return 1;
}

/* w may be NULL (a result not computed) */
static int finite_result(const th_tensor *w) {
  if (w == NULL || finite_view(w)) return TH_OK;
  return th_error_set("the result is not finite: the computation overflowed "
                      "(A is too close to singular or its entries too large for %s)",
                      th_dtype_name[w->dtype]);
}

/* a matrix result LAPACK computes in place: column-major, as in Torch7 */
static int place(th_tensor *r, const th_tensor *w) { return place_as(r, w, 1); }
/* a result Torch7 builds row-major: vectors, eig's n x 2, svd's V, qr's R */
static int place_rows(th_tensor *r, const th_tensor *w) { return place_as(r, w, 0); }

static int clear2(th_tensor *a, th_tensor *b, int rc) {
  th_tensor_clear(a);
  th_tensor_clear(b);
  return rc;
}

#define DATA(t) th_tensor_data(&(t))
#define INT(v) ((int)(v))

/* --- solvers ------------------------------------------------------------------- */

int th_lapack_gesv(th_tensor *rb, th_tensor *ra, const th_tensor *b, const th_tensor *a) {
  th_tensor wa, wb, *r[2];
  int rc;
  r[0] = rb, r[1] = ra;
  if (floating(a, "A") != TH_OK || square(a, "A") != TH_OK || rhs(b, a) != TH_OK ||
      results(a, r, 2) != TH_OK)
    return TH_ERR;
  th_tensor_init(&wb, a->dtype);
  rc = colmajor_copy(&wa, a, rows_of(a), "A");
  if (rc == TH_OK) rc = colmajor_copy(&wb, b, rows_of(b), "B");
  if (rc == TH_OK)
    rc = LAPACK_CALL(a->dtype, la_gesv, (INT(rows_of(a)), INT(cols_of(b)), DATA(wa), DATA(wb)));
  if (rc == TH_OK) rc = finite_result(&wb);
  if (rc == TH_OK) rc = finite_result(&wa);
  if (rc == TH_OK) rc = place(rb, &wb);
  if (rc == TH_OK) rc = place(ra, &wa);
  return clear2(&wa, &wb, rc);
}

int th_lapack_trtrs(th_tensor *rb, th_tensor *ra, const th_tensor *b, const th_tensor *a,
                    char uplo, char trans, char diag) {
  th_tensor wa, wb, *r[2];
  int rc;
  r[0] = rb, r[1] = ra;
  if (option(uplo, "UL", "uplo") != TH_OK || option(trans, "NT", "trans") != TH_OK ||
      option(diag, "NU", "diag") != TH_OK || floating(a, "A") != TH_OK || square(a, "A") != TH_OK ||
      rhs(b, a) != TH_OK || results(a, r, 2) != TH_OK)
    return TH_ERR;
  th_tensor_init(&wb, a->dtype);
  rc = colmajor_copy(&wa, a, rows_of(a), "A");
  if (rc == TH_OK) rc = colmajor_copy(&wb, b, rows_of(b), "B");
  if (rc == TH_OK)
    rc = LAPACK_CALL(a->dtype, la_trtrs,
                     (uplo, trans, diag, INT(rows_of(a)), INT(cols_of(b)), DATA(wa), DATA(wb)));
  if (rc == TH_OK) rc = finite_result(&wb);
  if (rc == TH_OK) rc = place(rb, &wb);
  if (rc == TH_OK) rc = place(ra, &wa);
  return clear2(&wa, &wb, rc);
}

int th_lapack_gels(th_tensor *rb, th_tensor *ra, const th_tensor *b, const th_tensor *a) {
  th_tensor wa, wb, x, *r[2];
  int64_t m, n, ldb;
  int rc;
  r[0] = rb, r[1] = ra;
  if (floating(a, "A") != TH_OK || matrix(a, "A", 0) != TH_OK || rhs(b, a) != TH_OK ||
      results(a, r, 2) != TH_OK)
    return TH_ERR;
  m = rows_of(a), n = cols_of(a), ldb = m > n ? m : n;
  th_tensor_init(&wb, a->dtype);
  rc = colmajor_copy(&wa, a, m, "A");
  /* B's buffer has max(m, n) rows: the solution (n rows) is written over it */
  if (rc == TH_OK) rc = colmajor_copy(&wb, b, ldb, "B");
  if (rc == TH_OK)
    rc = LAPACK_CALL(a->dtype, la_gels,
                     (INT(m), INT(n), INT(cols_of(b)), DATA(wa), DATA(wb), INT(ldb)));
  x = wb;
  x.size[0] = n;
  if (rc == TH_OK) rc = finite_result(&x);
  if (rc == TH_OK) rc = finite_result(&wa);
  if (rc == TH_OK) rc = place(rb, &x);
  if (rc == TH_OK) rc = place(ra, &wa);
  return clear2(&wa, &wb, rc);
}

int th_lapack_getri(th_tensor *ra, const th_tensor *a) {
  th_tensor wa;
  int rc;
  if (floating(a, "A") != TH_OK || square(a, "A") != TH_OK || results(a, &ra, 1) != TH_OK)
    return TH_ERR;
  rc = colmajor_copy(&wa, a, rows_of(a), "A");
  if (rc == TH_OK) rc = LAPACK_CALL(a->dtype, la_getri, (INT(rows_of(a)), DATA(wa)));
  if (rc == TH_OK) rc = finite_result(&wa);
  if (rc == TH_OK) rc = place(ra, &wa);
  th_tensor_clear(&wa);
  return rc;
}

/* --- eigenvalues and singular values -------------------------------------------- */

int th_lapack_syev(th_tensor *re, th_tensor *rv, const th_tensor *a, char jobz, char uplo) {
  th_tensor wv, we, *r[2];
  int rc;
  r[0] = re, r[1] = rv;
  if (option(jobz, "NV", "jobz") != TH_OK || option(uplo, "UL", "uplo") != TH_OK ||
      floating(a, "A") != TH_OK || square(a, "A") != TH_OK || results(a, r, 2) != TH_OK)
    return TH_ERR;
  th_tensor_init(&we, a->dtype);
  rc = colmajor_copy(&wv, a, rows_of(a), "A");
  if (rc == TH_OK) rc = vector_new(&we, a->dtype, rows_of(a));
  if (rc == TH_OK)
    rc = LAPACK_CALL(a->dtype, la_syev, (jobz, uplo, INT(rows_of(a)), DATA(wv), DATA(we)));
  if (rc == TH_OK) rc = finite_result(&we);
  if (rc == TH_OK) rc = finite_result(jobz == 'V' ? &wv : NULL);
  if (rc == TH_OK) rc = place(re, &we);
  if (rc == TH_OK && jobz == 'V') rc = place(rv, &wv);
  return clear2(&wv, &we, rc);
}

int th_lapack_geev(th_tensor *re, th_tensor *rv, const th_tensor *a, char jobvr) {
  th_tensor wa, we, wv, *r[2];
  const int64_t n = a->size[0];
  int rc;
  r[0] = re, r[1] = rv;
  if (option(jobvr, "NV", "jobvr") != TH_OK || floating(a, "A") != TH_OK ||
      square(a, "A") != TH_OK || results(a, r, 2) != TH_OK)
    return TH_ERR;
  th_tensor_init(&we, a->dtype);
  th_tensor_init(&wv, a->dtype);
  rc = colmajor_copy(&wa, a, n, "A");
  if (rc == TH_OK) rc = th_tensor_resize2d(&we, n, 2);
  if (rc == TH_OK && jobvr == 'V') rc = colmajor_new(&wv, a->dtype, n, n);
  if (rc == TH_OK)
    rc = LAPACK_CALL(a->dtype, la_geev,
                     (jobvr, INT(n), DATA(wa), DATA(we), jobvr == 'V' ? DATA(wv) : NULL));
  if (rc == TH_OK) rc = finite_result(&we);
  if (rc == TH_OK) rc = finite_result(jobvr == 'V' ? &wv : NULL);
  if (rc == TH_OK) rc = place_rows(re, &we);
  if (rc == TH_OK && jobvr == 'V') rc = place(rv, &wv);
  th_tensor_clear(&wa);
  return clear2(&we, &wv, rc);
}

int th_lapack_gesvd(th_tensor *ru, th_tensor *rs, th_tensor *rv, const th_tensor *a, char jobu) {
  th_tensor wa, wu, ws, wv, *r[3];
  int64_t m, n, k, ucols, vcols;
  int rc;
  r[0] = ru, r[1] = rs, r[2] = rv;
  if (option(jobu, "SA", "jobu") != TH_OK || floating(a, "A") != TH_OK ||
      matrix(a, "A", 0) != TH_OK || results(a, r, 3) != TH_OK)
    return TH_ERR;
  m = a->size[0], n = a->size[1], k = m < n ? m : n;
  ucols = jobu == 'A' ? m : k;
  vcols = jobu == 'A' ? n : k;
  th_tensor_init(&wu, a->dtype);
  th_tensor_init(&ws, a->dtype);
  th_tensor_init(&wv, a->dtype);
  rc = colmajor_copy(&wa, a, m, "A");
  if (rc == TH_OK) rc = colmajor_new(&wu, a->dtype, m, ucols);
  if (rc == TH_OK) rc = vector_new(&ws, a->dtype, k);
  /* V' (vcols x n) column-major with ldvt = vcols is V (n x vcols) row-major */
  if (rc == TH_OK) rc = th_tensor_resize2d(&wv, n, vcols);
  if (rc == TH_OK)
    rc = LAPACK_CALL(a->dtype, la_gesvd,
                     (jobu, INT(m), INT(n), DATA(wa), DATA(ws), DATA(wu), DATA(wv), INT(vcols)));
  if (rc == TH_OK) rc = finite_result(&wu);
  if (rc == TH_OK) rc = finite_result(&ws);
  if (rc == TH_OK) rc = finite_result(&wv);
  if (rc == TH_OK) rc = place(ru, &wu);
  if (rc == TH_OK) rc = place(rs, &ws);
  if (rc == TH_OK) rc = place_rows(rv, &wv);
  th_tensor_clear(&wa);
  th_tensor_clear(&wu);
  return clear2(&ws, &wv, rc);
}

/* --- Cholesky ------------------------------------------------------------------ */

int th_lapack_potrf(th_tensor *ra, const th_tensor *a, char uplo) {
  th_tensor wa;
  int rc;
  if (option(uplo, "UL", "uplo") != TH_OK || floating(a, "A") != TH_OK ||
      square(a, "A") != TH_OK || results(a, &ra, 1) != TH_OK)
    return TH_ERR;
  rc = colmajor_copy(&wa, a, rows_of(a), "A");
  if (rc == TH_OK) rc = LAPACK_CALL(a->dtype, la_potrf, (uplo, INT(rows_of(a)), DATA(wa)));
  if (rc == TH_OK) rc = finite_result(&wa);
  if (rc == TH_OK) rc = place(ra, &wa);
  th_tensor_clear(&wa);
  return rc;
}

int th_lapack_potrs(th_tensor *rb, const th_tensor *b, const th_tensor *chol, char uplo) {
  th_tensor wa, wb;
  int rc;
  if (option(uplo, "UL", "uplo") != TH_OK || floating(chol, "A") != TH_OK ||
      square(chol, "A") != TH_OK || rhs(b, chol) != TH_OK || results(chol, &rb, 1) != TH_OK)
    return TH_ERR;
  th_tensor_init(&wb, chol->dtype);
  rc = colmajor_copy(&wa, chol, rows_of(chol), "A");
  if (rc == TH_OK) rc = colmajor_copy(&wb, b, rows_of(b), "B");
  if (rc == TH_OK)
    rc = LAPACK_CALL(chol->dtype, la_potrs,
                     (uplo, INT(rows_of(chol)), INT(cols_of(b)), DATA(wa), DATA(wb)));
  if (rc == TH_OK) rc = finite_result(&wb);
  if (rc == TH_OK) rc = place(rb, &wb);
  return clear2(&wa, &wb, rc);
}

int th_lapack_potri(th_tensor *ra, const th_tensor *chol, char uplo) {
  th_tensor wa;
  int rc;
  if (option(uplo, "UL", "uplo") != TH_OK || floating(chol, "A") != TH_OK ||
      square(chol, "A") != TH_OK || results(chol, &ra, 1) != TH_OK)
    return TH_ERR;
  rc = colmajor_copy(&wa, chol, rows_of(chol), "A");
  if (rc == TH_OK) rc = LAPACK_CALL(chol->dtype, la_potri, (uplo, INT(rows_of(chol)), DATA(wa)));
  if (rc == TH_OK) rc = finite_result(&wa);
  if (rc == TH_OK) rc = place(ra, &wa);
  th_tensor_clear(&wa);
  return rc;
}

int th_lapack_pstrf(th_tensor *ra, th_tensor *rpiv, const th_tensor *a, char uplo, double tol) {
  th_tensor wa, wp;
  int rc;
  if (option(uplo, "UL", "uplo") != TH_OK || floating(a, "A") != TH_OK ||
      square(a, "A") != TH_OK || results(a, &ra, 1) != TH_OK)
    return TH_ERR;
  if (rpiv->dtype != TH_INT)
    return th_error_set("piv must be an IntTensor, got a %sTensor", th_dtype_name[rpiv->dtype]);
  if (isnan(tol)) return th_error_set("tol must be a number, got NaN");
  th_tensor_init(&wp, TH_INT);
  rc = colmajor_copy(&wa, a, rows_of(a), "A");
  if (rc == TH_OK) rc = th_tensor_resize1d(&wp, rows_of(a));
  if (rc == TH_OK)
    rc = LAPACK_CALL(a->dtype, la_pstrf,
                     (uplo, INT(rows_of(a)), DATA(wa), (int *)DATA(wp), tol));
  if (rc == TH_OK) rc = finite_result(&wa);
  if (rc == TH_OK) rc = place(ra, &wa);
  if (rc == TH_OK) rc = place(rpiv, &wp);
  return clear2(&wa, &wp, rc);
}

/* --- QR ---------------------------------------------------------------------- */

int th_lapack_geqrf(th_tensor *ra, th_tensor *rtau, const th_tensor *a) {
  th_tensor wa, wt, *r[2];
  int64_t m, n;
  int rc;
  r[0] = ra, r[1] = rtau;
  if (floating(a, "A") != TH_OK || matrix(a, "A", 0) != TH_OK || results(a, r, 2) != TH_OK)
    return TH_ERR;
  m = a->size[0], n = a->size[1];
  th_tensor_init(&wt, a->dtype);
  rc = colmajor_copy(&wa, a, m, "A");
  if (rc == TH_OK) rc = vector_new(&wt, a->dtype, m < n ? m : n);
  if (rc == TH_OK) rc = LAPACK_CALL(a->dtype, la_geqrf, (INT(m), INT(n), DATA(wa), DATA(wt)));
  if (rc == TH_OK) rc = finite_result(&wa);
  if (rc == TH_OK) rc = finite_result(&wt);
  if (rc == TH_OK) rc = place(ra, &wa);
  if (rc == TH_OK) rc = place(rtau, &wt);
  return clear2(&wa, &wt, rc);
}

/* tau: 1D, of a's type, with k <= limit entries */
static int check_tau(const th_tensor *tau, const th_tensor *a, int64_t limit) {
  char b[128];
  if (same_type(a, tau, "tau") != TH_OK) return TH_ERR;
  if (tau->ndim != 1)
    return th_error_set("tau must be a 1D tensor, got size %s", th_tensor_sizestr(tau, b, sizeof b));
  if (tau->size[0] > limit)
    return th_error_set("tau has %lld reflectors, more than A allows (%lld)",
                        (long long)tau->size[0], (long long)limit);
  return TH_OK;
}

int th_lapack_orgqr(th_tensor *rq, const th_tensor *a, const th_tensor *tau) {
  th_tensor wa, wt, q;
  int64_t m, k;
  int rc;
  if (floating(a, "A") != TH_OK || matrix(a, "A", 0) != TH_OK || results(a, &rq, 1) != TH_OK)
    return TH_ERR;
  m = a->size[0];
  if (check_tau(tau, a, m < a->size[1] ? m : a->size[1]) != TH_OK) return TH_ERR;
  k = tau->size[0];
  th_tensor_init(&wt, a->dtype);
  rc = colmajor_copy(&wa, a, m, "A");
  if (rc == TH_OK) rc = vector_copy(&wt, tau, "tau");
  if (rc == TH_OK) rc = LAPACK_CALL(a->dtype, la_orgqr, (INT(m), INT(k), DATA(wa), DATA(wt)));
  q = wa;
  q.size[1] = k;
  if (rc == TH_OK) rc = finite_result(&q);
  if (rc == TH_OK) rc = place(rq, &q);
  return clear2(&wa, &wt, rc);
}

int th_lapack_ormqr(th_tensor *rc_, const th_tensor *a, const th_tensor *tau, const th_tensor *c,
                    char side, char trans) {
  th_tensor wa, wt, wc;
  int64_t m, n, nq;
  char b[128];
  int rc;
  if (option(side, "LR", "side") != TH_OK || option(trans, "NT", "trans") != TH_OK ||
      floating(a, "A") != TH_OK || matrix(a, "A", 0) != TH_OK || matrix(c, "C", 0) != TH_OK ||
      same_type(a, c, "C") != TH_OK || results(a, &rc_, 1) != TH_OK)
    return TH_ERR;
  m = c->size[0], n = c->size[1];
  nq = side == 'L' ? m : n;  /* Q is nq x nq */
  if (a->size[0] != nq)
    return th_error_set("A must have %lld rows (C's %s with side '%c'), got size %s", (long long)nq,
                        side == 'L' ? "rows" : "columns", side, th_tensor_sizestr(a, b, sizeof b));
  if (check_tau(tau, a, a->size[1] < nq ? a->size[1] : nq) != TH_OK) return TH_ERR;
  th_tensor_init(&wt, a->dtype);
  th_tensor_init(&wc, a->dtype);
  rc = colmajor_copy(&wa, a, nq, "A");
  if (rc == TH_OK) rc = vector_copy(&wt, tau, "tau");
  if (rc == TH_OK) rc = colmajor_copy(&wc, c, m, "C");
  if (rc == TH_OK)
    rc = LAPACK_CALL(a->dtype, la_ormqr, (side, trans, INT(m), INT(n), INT(tau->size[0]), DATA(wa),
                                          INT(nq), DATA(wt), DATA(wc)));
  if (rc == TH_OK) rc = finite_result(&wc);
  if (rc == TH_OK) rc = place(rc_, &wc);
  th_tensor_clear(&wa);
  return clear2(&wt, &wc, rc);
}

int th_lapack_qr(th_tensor *rq, th_tensor *rr, const th_tensor *a) {
  th_tensor wa, wt, wr, q, *r[2];
  int64_t m, n, k;
  int rc;
  r[0] = rq, r[1] = rr;
  if (floating(a, "A") != TH_OK || matrix(a, "A", 0) != TH_OK || results(a, r, 2) != TH_OK)
    return TH_ERR;
  m = a->size[0], n = a->size[1], k = m < n ? m : n;
  th_tensor_init(&wt, a->dtype);
  th_tensor_init(&wr, a->dtype);
  rc = colmajor_copy(&wa, a, m, "A");
  if (rc == TH_OK) rc = vector_new(&wt, a->dtype, k);
  if (rc == TH_OK) rc = th_tensor_resize2d(&wr, k, n);
  if (rc == TH_OK) rc = LAPACK_CALL(a->dtype, la_geqrf, (INT(m), INT(n), DATA(wa), DATA(wt)));
  if (rc == TH_OK)
    rc = LAPACK_CALL(a->dtype, la_take_r, (DATA(wa), INT(m), INT(k), INT(n), DATA(wr)));
  if (rc == TH_OK) rc = LAPACK_CALL(a->dtype, la_orgqr, (INT(m), INT(k), DATA(wa), DATA(wt)));
  q = wa;
  q.size[1] = k;
  if (rc == TH_OK) rc = finite_result(&q);
  if (rc == TH_OK) rc = finite_result(&wr);
  if (rc == TH_OK) rc = place(rq, &q);
  if (rc == TH_OK) rc = place_rows(rr, &wr);
  th_tensor_clear(&wa);
  return clear2(&wt, &wr, rc);
}
