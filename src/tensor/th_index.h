/*
** th_index.h: indexing, masking, concatenation and sorting of tensors.
** Dimensions are 0-based here, as everywhere in the core. Index tensors
** (LongTensors) hold Torch7's 1-based indices, the form Lua scripts and
** nn modules keep them in: the kernels check every entry against its
** range and subtract TH_INDEX_BASE in one place, and the index tensors
** they return (sort, topk, kthvalue, nonzero) are 1-based too, so no
** binding converts whole index tensors.
** Masks are ByteTensors of 0 and 1 with the same element count as the
** tensor they mask (the shapes may differ; elements pair up in row-major
** order, as in Torch7).
** Results 'r' are resized; when a result shares a storage with an input,
** the kernel works in a temporary first, so r:index(r, 1, idx) is fine.
** On error nothing has been written, except where a comment says so.
*/
#ifndef TH_INDEX_H
#define TH_INDEX_H

#include "th_tensor.h"

#define TH_INDEX_BASE 1

/* r = src with dimension 'dim' replaced by the slices idx[1..n] (idx 1D) */
int th_tensor_index(th_tensor *r, const th_tensor *src, int dim, const th_tensor *idx);
/* slices idx[i] of t along dim = slice i of src (src: t's shape with size n at dim) */
int th_tensor_index_copy(th_tensor *t, int dim, const th_tensor *idx, const th_tensor *src);
/* the same, adding; repeated indices accumulate */
int th_tensor_index_add(th_tensor *t, int dim, const th_tensor *idx, const th_tensor *src);
int th_tensor_index_fill(th_tensor *t, int dim, const th_tensor *idx, double value);

/* r[i][j]... = src[..][idx[i][j]..][..] along dim; r takes idx's sizes, which
   must equal src's in every dimension but dim */
int th_tensor_gather(th_tensor *r, const th_tensor *src, int dim, const th_tensor *idx);
/* t[..][idx[i][j]..][..] = src[i][j]...; src may be NULL to write 'value' */
int th_tensor_scatter(th_tensor *t, int dim, const th_tensor *idx, const th_tensor *src, double value);

int th_tensor_masked_fill(th_tensor *t, const th_tensor *mask, double value);
/* r = 1D tensor of the elements of src where mask is 1 */
int th_tensor_masked_select(th_tensor *r, const th_tensor *src, const th_tensor *mask);
/* the elements of t where mask is 1 take src's first elements, in order */
int th_tensor_masked_copy(th_tensor *t, const th_tensor *mask, const th_tensor *src);
/* r = LongTensor n x ndim of the 1-based subscripts of src's nonzero elements */
int th_tensor_nonzero(th_tensor *r, const th_tensor *src);

/* r = the n tensors joined along dim (-1: the last dimension of the
   largest input). Empty inputs (no dimension, or 1D of size 0) are
   skipped; a missing trailing dimension counts as size 1, as in Torch7. */
int th_tensor_cat(th_tensor *r, int n, const th_tensor *const *ts, int dim);

/* stable sort of every row along dim: values (src's type) and 1-based
   indices (LongTensor); NaN sorts above every number */
int th_tensor_sort(th_tensor *values, th_tensor *indices, const th_tensor *src, int dim,
                   int descending);
/* the k smallest (largest != 0: largest) of every row along dim, sorted */
int th_tensor_topk(th_tensor *values, th_tensor *indices, const th_tensor *src, int64_t k,
                   int dim, int largest);
/* the k-th smallest (k 1-based) of every row along dim; dim keeps size 1 */
int th_tensor_kthvalue(th_tensor *values, th_tensor *indices, const th_tensor *src, int64_t k,
                       int dim);
/* the lower median, kthvalue with k = (n + 1) / 2 */
int th_tensor_median(th_tensor *values, th_tensor *indices, const th_tensor *src, int dim);

#endif
