/*
** th_tensor.h: strided views over a storage.
** A tensor is a value (embedded in its Lua userdata, or on the C stack in
** kernels): storage + offset + sizes + strides, all in elements. It holds
** one reference to its storage. ndim == 0 means empty (Torch7 has no
** 0-dim scalars); an empty tensor may still hold a storage.
** View functions write into 'r' and accept r == src.
*/
#ifndef TH_TENSOR_H
#define TH_TENSOR_H

#include <stdint.h>
#include "th_storage.h"

#define TH_MAXDIM 16

enum { TH_TENSOR_FREED = 1 };  /* released by t:free(); any use is an error */

typedef struct th_tensor {
  th_storage *storage;  /* NULL when it has none */
  int64_t offset;
  int ndim;
  th_dtype dtype;
  unsigned flags;
  /* when > 0: the view may not reach storage element 'limit' or beyond.
     The memory optimizer sets it on tensors it placed in a shared arena, so
     that a resize past the planned slot is an error, never an overlap. */
  int64_t limit;
  int64_t size[TH_MAXDIM];
  int64_t stride[TH_MAXDIM];
} th_tensor;

void th_tensor_init(th_tensor *t, th_dtype dtype);
/* releases the storage and empties the tensor */
void th_tensor_clear(th_tensor *t);
int64_t th_tensor_numel(const th_tensor *t);
int th_tensor_is_contiguous(const th_tensor *t);
int th_tensor_same_size(const th_tensor *a, const th_tensor *b);
/* pointer to element 0 (NULL for a tensor without storage) */
void *th_tensor_data(const th_tensor *t);
/* smallest storage size (in elements) the view needs, from offset 0 */
int64_t th_tensor_extent(const th_tensor *t);
/* TH_OK when every element of the view lies inside its storage: offset +
   sum((size-1)*stride) < storage size, or no element at all. A view can
   outlive a shrink of its storage (storage:resize(0) while it still views
   it), so whatever dereferences a view checks this at use, once per call:
   the bindings' tensor getters (th_lua_checktensor) do. 'what' starts the
   message ("input of size 2x3 extends past its storage (needs 7 elements,
   storage has 0)"). */
int th_tensor_check_extent(const th_tensor *t, const char *what);
/* "2x3x4" into buf */
char *th_tensor_sizestr(const th_tensor *t, char *buf, size_t len);

/* contiguous resize: keeps storage and offset, grows the storage if too small */
int th_tensor_resize(th_tensor *t, int ndim, const int64_t *size);
int th_tensor_resize_as(th_tensor *t, const th_tensor *src);
int th_tensor_resize1d(th_tensor *t, int64_t n);
int th_tensor_resize2d(th_tensor *t, int64_t n0, int64_t n1);
/* points 't' at storage s (may be NULL); stride NULL means contiguous */
int th_tensor_set(th_tensor *t, th_storage *s, int64_t offset, int ndim,
                  const int64_t *size, const int64_t *stride);
void th_tensor_set_tensor(th_tensor *t, const th_tensor *src);

/* views (0-based dims and indices) */
int th_tensor_narrow(th_tensor *r, const th_tensor *src, int dim, int64_t first, int64_t len);
int th_tensor_select(th_tensor *r, const th_tensor *src, int dim, int64_t index);
int th_tensor_transpose(th_tensor *r, const th_tensor *src, int d1, int d2);
int th_tensor_permute(th_tensor *r, const th_tensor *src, const int *perm);
int th_tensor_unfold(th_tensor *r, const th_tensor *src, int dim, int64_t size, int64_t step);
int th_tensor_squeeze(th_tensor *r, const th_tensor *src);
int th_tensor_squeeze1d(th_tensor *r, const th_tensor *src, int dim);
int th_tensor_unsqueeze(th_tensor *r, const th_tensor *src, int dim);
int th_tensor_expand(th_tensor *r, const th_tensor *src, int ndim, const int64_t *size);
/* size may hold one -1 (inferred); fails if the strides cannot express it */
int th_tensor_view(th_tensor *r, const th_tensor *src, int ndim, const int64_t *size);

/* element-wise copy between any two types and layouts with equal numel */
int th_tensor_copy(th_tensor *dst, const th_tensor *src);
/* r = contiguous version of src (a view when src already is) */
int th_tensor_contiguous(th_tensor *r, const th_tensor *src);
int th_tensor_fill(th_tensor *t, double value);
int th_tensor_zero(th_tensor *t);

#endif
