/* generic/lapack.c: the LAPACK calls for 'real' (included by th_lapack.c).
   Every matrix argument is a column-major buffer th_lapack.c prepared,
   with its leading dimension given (at least 1); sizes were checked to fit
   int. Each function queries the workspace (lwork = -1), allocates it,
   runs the routine and turns info > 0 into a message; info < 0 means an
   argument this file passed is wrong, a bug here, reported as such. */

#if defined(TH_REAL_IS_FLOAT)
#define LA(f) s##f##_
#else
#define LA(f) d##f##_
#endif

/* LAPACK's suggested workspace, allocated; NULL with the error set */
static real *TH_R(workspace)(real query, int *lwork) {
  /* a size near 2^24 may round down in single precision: add a margin */
  double q = (double)query * (1.0 + 1e-6) + 1.0;
  if (q > INT_MAX / 2) q = INT_MAX / 2;
  *lwork = (int)q;
  return th_alloc(sizeof(real) * (size_t)*lwork, TH_MEM_FREE);
}

static void TH_R(workfree)(real *work, int lwork) {
  if (work != NULL) th_free(work, sizeof(real) * (size_t)lwork, TH_MEM_FREE);
}

/* the routine's own arguments were refused: never the user's fault */
static int TH_R(bad_info)(const char *routine, int info) {
  return th_error_set("internal error: LAPACK %s refused argument %d", routine, -info);
}

static int TH_R(la_finite)(const real *p, int64_t n) {
  int64_t i;
  for (i = 0; i < n; i++)
    if (!isfinite(p[i])) return 0;
  return 1;
}

/* zeroes the strictly lower ('U') or strictly upper ('L') triangle of n x n a */
static void TH_R(la_clear_triangle)(real *a, int n, char uplo) {
  int i, j;
  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++)
      if (uplo == 'U' ? i > j : i < j) a[(size_t)j * n + i] = 0;
}

/* fills the triangle LAPACK left alone from its mirror image */
static void TH_R(la_mirror)(real *a, int n, char uplo) {
  int i, j;
  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++)
      if (uplo == 'U' ? i > j : i < j) a[(size_t)j * n + i] = a[(size_t)i * n + j];
}

static int TH_R(la_gesv)(int n, int nrhs, real *a, real *b) {
  int info = 0, *ipiv = th_alloc(sizeof(int) * (size_t)n, TH_MEM_FREE);
  if (ipiv == NULL) return TH_ERR;
  LA(gesv)(&n, &nrhs, a, &n, ipiv, b, &n, &info);
  th_free(ipiv, sizeof(int) * (size_t)n, TH_MEM_FREE);
  if (info < 0) return TH_R(bad_info)("gesv", info);
  if (info > 0) return th_error_set("U(%d,%d) is zero, singular U (A is singular)", info, info);
  return TH_OK;
}

static int TH_R(la_trtrs)(char uplo, char trans, char diag, int n, int nrhs, real *a, real *b) {
  int info = 0;
  LA(trtrs)(&uplo, &trans, &diag, &n, &nrhs, a, &n, b, &n, &info, 1, 1, 1);
  if (info < 0) return TH_R(bad_info)("trtrs", info);
  if (info > 0) return th_error_set("A(%d,%d) is zero, singular A", info, info);
  return TH_OK;
}

static int TH_R(la_gels)(int m, int n, int nrhs, real *a, real *b, int ldb) {
  int info = 0, lwork = -1;
  real query = 0, *work;
  char trans = 'N';
  LA(gels)(&trans, &m, &n, &nrhs, a, &m, b, &ldb, &query, &lwork, &info, 1);
  if (info < 0) return TH_R(bad_info)("gels", info);
  if ((work = TH_R(workspace)(query, &lwork)) == NULL) return TH_ERR;
  LA(gels)(&trans, &m, &n, &nrhs, a, &m, b, &ldb, work, &lwork, &info, 1);
  TH_R(workfree)(work, lwork);
  if (info < 0) return TH_R(bad_info)("gels", info);
  if (info > 0)
    return th_error_set("the %d-th diagonal element of the triangular factor of A is zero "
                        "(A does not have full rank)", info);
  return TH_OK;
}

static int TH_R(la_syev)(char jobz, char uplo, int n, real *a, real *w) {
  int info = 0, lwork = -1;
  real query = 0, *work;
  LA(syev)(&jobz, &uplo, &n, a, &n, w, &query, &lwork, &info, 1, 1);
  if (info < 0) return TH_R(bad_info)("syev", info);
  if ((work = TH_R(workspace)(query, &lwork)) == NULL) return TH_ERR;
  LA(syev)(&jobz, &uplo, &n, a, &n, w, work, &lwork, &info, 1, 1);
  TH_R(workfree)(work, lwork);
  if (info < 0) return TH_R(bad_info)("syev", info);
  if (info > 0) return th_error_set("%d off-diagonal elements did not converge to zero", info);
  return TH_OK;
}

/* e: n x 2 row-major (real, imaginary); vr: n x n column-major or NULL */
static int TH_R(la_geev)(char jobvr, int n, real *a, real *e, real *vr) {
  int info = 0, lwork = -1, one = 1, ldvr = vr != NULL ? n : 1, i;
  real query = 0, *work, *wr = th_alloc(sizeof(real) * 2 * (size_t)n, TH_MEM_FREE), *wi;
  char jobvl = 'N';
  if (wr == NULL) return TH_ERR;
  wi = wr + n;
  LA(geev)(&jobvl, &jobvr, &n, a, &n, wr, wi, NULL, &one, vr, &ldvr, &query, &lwork, &info, 1, 1);
  if (info == 0) {
    if ((work = TH_R(workspace)(query, &lwork)) == NULL) {
      th_free(wr, sizeof(real) * 2 * (size_t)n, TH_MEM_FREE);
      return TH_ERR;
    }
    LA(geev)(&jobvl, &jobvr, &n, a, &n, wr, wi, NULL, &one, vr, &ldvr, work, &lwork, &info, 1, 1);
    TH_R(workfree)(work, lwork);
  }
  for (i = 0; info == 0 && i < n; i++) e[2 * i] = wr[i], e[2 * i + 1] = wi[i];
  th_free(wr, sizeof(real) * 2 * (size_t)n, TH_MEM_FREE);
  if (info < 0) return TH_R(bad_info)("geev", info);
  if (info > 0)
    return th_error_set("the QR algorithm failed to compute all eigenvalues "
                        "(eigenvalues 1 to %d did not converge)", info);
  return TH_OK;
}

/* u: m x ucols column-major (ldu m); vt: vrows x n column-major (ldvt vrows) */
static int TH_R(la_gesvd)(char jobu, int m, int n, real *a, real *s, real *u, real *vt,
                          int vrows) {
  int info = 0, lwork = -1;
  real query = 0, *work;
  LA(gesvd)(&jobu, &jobu, &m, &n, a, &m, s, u, &m, vt, &vrows, &query, &lwork, &info, 1, 1);
  if (info < 0) return TH_R(bad_info)("gesvd", info);
  if ((work = TH_R(workspace)(query, &lwork)) == NULL) return TH_ERR;
  LA(gesvd)(&jobu, &jobu, &m, &n, a, &m, s, u, &m, vt, &vrows, work, &lwork, &info, 1, 1);
  TH_R(workfree)(work, lwork);
  if (info < 0) return TH_R(bad_info)("gesvd", info);
  if (info > 0) return th_error_set("%d superdiagonals failed to converge", info);
  return TH_OK;
}

static int TH_R(la_getri)(int n, real *a) {
  int info = 0, lwork = -1, *ipiv = th_alloc(sizeof(int) * (size_t)n, TH_MEM_FREE);
  real query = 0, *work = NULL;
  if (ipiv == NULL) return TH_ERR;
  LA(getrf)(&n, &n, a, &n, ipiv, &info);
  if (info == 0) LA(getri)(&n, a, &n, ipiv, &query, &lwork, &info);
  /* INT_MIN: the workspace could not be allocated (th_alloc set the message) */
  if (info == 0 && (work = TH_R(workspace)(query, &lwork)) == NULL) info = INT_MIN;
  if (info == 0) LA(getri)(&n, a, &n, ipiv, work, &lwork, &info);
  TH_R(workfree)(work, lwork);
  th_free(ipiv, sizeof(int) * (size_t)n, TH_MEM_FREE);
  if (info == INT_MIN) return TH_ERR;
  if (info < 0) return TH_R(bad_info)("getrf/getri", info);
  if (info > 0) return th_error_set("U(%d,%d) is zero, singular U (A is singular)", info, info);
  return TH_OK;
}

static int TH_R(la_potrf)(char uplo, int n, real *a) {
  int info = 0;
  LA(potrf)(&uplo, &n, a, &n, &info, 1);
  if (info < 0) return TH_R(bad_info)("potrf", info);
  if (info > 0)
    return th_error_set("the leading minor of order %d is not positive definite", info);
  TH_R(la_clear_triangle)(a, n, uplo);
  return TH_OK;
}

/* a zero on a triangular factor's diagonal would make potrs divide by it */
static int TH_R(la_nonsingular_factor)(const real *a, int n) {
  int i;
  for (i = 0; i < n; i++)
    if (a[(size_t)i * n + i] == 0)
      return th_error_set("the Cholesky factor has a zero at (%d,%d): it is singular", i + 1, i + 1);
  return TH_OK;
}

static int TH_R(la_potrs)(char uplo, int n, int nrhs, real *a, real *b) {
  int info = 0;
  if (TH_R(la_nonsingular_factor)(a, n) != TH_OK) return TH_ERR;
  LA(potrs)(&uplo, &n, &nrhs, a, &n, b, &n, &info, 1);
  if (info != 0) return TH_R(bad_info)("potrs", info);
  return TH_OK;
}

static int TH_R(la_potri)(char uplo, int n, real *a) {
  int info = 0;
  LA(potri)(&uplo, &n, a, &n, &info, 1);
  if (info < 0) return TH_R(bad_info)("potri", info);
  if (info > 0) return th_error_set("A(%d,%d) is zero, A cannot be inverted", info, info);
  TH_R(la_mirror)(a, n, uplo);
  return TH_OK;
}

static int TH_R(la_pstrf)(char uplo, int n, real *a, int *piv, double tol) {
  int info = 0, rank = 0;
  real rtol = (real)tol, *work = th_alloc(sizeof(real) * 2 * (size_t)n, TH_MEM_FREE);
  if (work == NULL) return TH_ERR;
  LA(pstrf)(&uplo, &n, a, &n, piv, &rank, &rtol, work, &info, 1);
  th_free(work, sizeof(real) * 2 * (size_t)n, TH_MEM_FREE);
  if (info < 0) return TH_R(bad_info)("pstrf", info);
  if (info > 0)
    return th_error_set("matrix is rank deficient or not positive semidefinite "
                        "(rank %d of %d at this tolerance)", rank, n);
  TH_R(la_clear_triangle)(a, n, uplo);
  return TH_OK;
}

static int TH_R(la_geqrf)(int m, int n, real *a, real *tau) {
  int info = 0, lwork = -1;
  real query = 0, *work;
  LA(geqrf)(&m, &n, a, &m, tau, &query, &lwork, &info);
  if (info < 0) return TH_R(bad_info)("geqrf", info);
  if ((work = TH_R(workspace)(query, &lwork)) == NULL) return TH_ERR;
  LA(geqrf)(&m, &n, a, &m, tau, work, &lwork, &info);
  TH_R(workfree)(work, lwork);
  if (info != 0) return TH_R(bad_info)("geqrf", info);
  return TH_OK;
}

/* the first k columns of a (m x k, lda m) become Q's */
static int TH_R(la_orgqr)(int m, int k, real *a, const real *tau) {
  int info = 0, lwork = -1;
  real query = 0, *work;
  LA(orgqr)(&m, &k, &k, a, &m, tau, &query, &lwork, &info);
  if (info < 0) return TH_R(bad_info)("orgqr", info);
  if ((work = TH_R(workspace)(query, &lwork)) == NULL) return TH_ERR;
  LA(orgqr)(&m, &k, &k, a, &m, tau, work, &lwork, &info);
  TH_R(workfree)(work, lwork);
  if (info != 0) return TH_R(bad_info)("orgqr", info);
  return TH_OK;
}

static int TH_R(la_ormqr)(char side, char trans, int m, int n, int k, const real *a, int lda,
                          const real *tau, real *c) {
  int info = 0, lwork = -1;
  real query = 0, *work;
  LA(ormqr)(&side, &trans, &m, &n, &k, a, &lda, tau, c, &m, &query, &lwork, &info, 1, 1);
  if (info < 0) return TH_R(bad_info)("ormqr", info);
  if ((work = TH_R(workspace)(query, &lwork)) == NULL) return TH_ERR;
  LA(ormqr)(&side, &trans, &m, &n, &k, a, &lda, tau, c, &m, work, &lwork, &info, 1, 1);
  TH_R(workfree)(work, lwork);
  if (info != 0) return TH_R(bad_info)("ormqr", info);
  return TH_OK;
}

/* r (k x n row-major) = the upper triangle of the first k rows of a (lda m) */
static int TH_R(la_take_r)(const real *a, int m, int k, int n, real *r) {
  int i, j;
  for (i = 0; i < k; i++)
    for (j = 0; j < n; j++) r[(size_t)i * n + j] = j >= i ? a[(size_t)j * m + i] : 0;
  return TH_OK;
}

#undef LA
