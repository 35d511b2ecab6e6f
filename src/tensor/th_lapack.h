/*
** th_lapack.h: Torch7's linear algebra (TH's THTensorLapack) over the
** LAPACK that OpenBLAS exports, for Float and Double tensors.
** Input: 2D matrices (B may be 1D, read as one column) of any layout.
** Every input is first copied into a column-major work buffer: LAPACK
** overwrites its arguments, and the caller's inputs are never written,
** even when a result is the same tensor as an input (torch.gesv(b, a, b, a)).
** Output: each result is placed after LAPACK succeeded, as Torch7 does:
**   - an empty result (no storage: a new tensor) takes the work buffer
**     itself, so matrices LAPACK computed come back column-major
**     (strides 1, rows);
**   - such a matrix result given contiguous or of another shape is resized
**     and transposed to that column-major layout (keeping its storage when
**     large enough) and written: a second call reuses it as it is;
**   - a result already of the shape but strided otherwise is written in
**     place, keeping its strides;
**   - vectors, eig's n x 2 values, svd's V and qr's R are row-major in
**     Torch7: resized (contiguous) only when their shape differs.
** Two results of one call must not share a storage.
** Failure: non-2D or empty matrices, non-square where square is needed,
** mismatched rows, sizes beyond LAPACK's int, NaN or infinite entries,
** LAPACK's info > 0 (a singular or non-positive-definite matrix), and a
** result holding inf or NaN (an overflow inside LAPACK) are errors
** with TH_ERR and a message, found before any result is touched (only an
** allocation failing while a later result is placed can leave earlier ones
** written).
** Messages never name the operation: the binding prefixes it, and names the
** matrices as Torch7's documentation does (A, B).
** Character options are LAPACK's: uplo 'U'/'L', trans 'N'/'T', diag 'N'/'U',
** jobz 'N'/'V', jobu 'S'/'A', side 'L'/'R'; the binding validates them.
*/
#ifndef TH_LAPACK_H
#define TH_LAPACK_H

#include "th_tensor.h"

/* A X = B for square A: rb = X (n x k), ra = the LU factors of A */
int th_lapack_gesv(th_tensor *rb, th_tensor *ra, const th_tensor *b, const th_tensor *a);
/* triangular A: rb = X solving op(A) X = B, ra = a copy of A */
int th_lapack_trtrs(th_tensor *rb, th_tensor *ra, const th_tensor *b, const th_tensor *a,
                    char uplo, char trans, char diag);
/* least squares (m >= n) or minimum norm (m < n) solution of A X = B for
   A of full rank: rb = X (n x k), ra = A's QR (or LQ) factors */
int th_lapack_gels(th_tensor *rb, th_tensor *ra, const th_tensor *b, const th_tensor *a);
/* symmetric A = V diag(e) V': re = e ascending, rv = V (only with jobz 'V';
   with 'N' rv is left as it is) */
int th_lapack_syev(th_tensor *re, th_tensor *rv, const th_tensor *a, char jobz, char uplo);
/* general square A: re = n x 2 (real, imaginary parts), rv = right
   eigenvectors in LAPACK's packed real form (only with jobvr 'V') */
int th_lapack_geev(th_tensor *re, th_tensor *rv, const th_tensor *a, char jobvr);
/* A = U diag(s) V': 'S' gives U m x k, V n x k (k = min(m, n)); 'A' gives
   U m x m, V n x n; s descending */
int th_lapack_gesvd(th_tensor *ru, th_tensor *rs, th_tensor *rv, const th_tensor *a, char jobu);
/* ra = A^-1 (LU with partial pivoting) */
int th_lapack_getri(th_tensor *ra, const th_tensor *a);
/* Cholesky: A = U'U ('U') or L L' ('L'); the other triangle is zeroed */
int th_lapack_potrf(th_tensor *ra, const th_tensor *a, char uplo);
/* A X = B given A's Cholesky factor 'chol' (of the triangle uplo) */
int th_lapack_potrs(th_tensor *rb, const th_tensor *b, const th_tensor *chol, char uplo);
/* ra = A^-1, the full symmetric matrix, given A's Cholesky factor */
int th_lapack_potri(th_tensor *ra, const th_tensor *chol, char uplo);
/* pivoted Cholesky of a positive semidefinite A: P' A P = U'U or L L',
   rpiv (IntTensor) the 1-based pivots (P[piv[k], k] = 1); tol < 0 lets
   LAPACK choose; a rank below n is an error, as in Torch7 */
int th_lapack_pstrf(th_tensor *ra, th_tensor *rpiv, const th_tensor *a, char uplo, double tol);
/* thin QR: rq = Q (m x k, orthonormal columns), rr = R (k x n, upper) */
int th_lapack_qr(th_tensor *rq, th_tensor *rr, const th_tensor *a);
/* ra = R above the diagonal and the reflectors below it, rtau = their scales */
int th_lapack_geqrf(th_tensor *ra, th_tensor *rtau, const th_tensor *a);
/* rq = the first k = #tau columns of Q from geqrf's (a, tau) */
int th_lapack_orgqr(th_tensor *rq, const th_tensor *a, const th_tensor *tau);
/* rc = op(Q) C (side 'L') or C op(Q) ('R'), op by trans 'N' / 'T' */
int th_lapack_ormqr(th_tensor *rc, const th_tensor *a, const th_tensor *tau, const th_tensor *c,
                    char side, char trans);

#endif
