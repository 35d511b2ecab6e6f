/*
** th_math_internal.h: what the th_math_*.c files share and nobody else
** needs: result placement, type checks, and the element loops.
** TH_MAP2/3/4 run CODE once per element with pointers named by the
** caller. When every tensor is contiguous the loop is flat and, past
** th_par_min elements, split over th_pool's threads through
** th_math_map_run (each element is written by one iteration, so the
** result does not depend on the thread count); otherwise it walks rows
** through th_iter.
*/
#ifndef TH_MATH_INTERNAL_H
#define TH_MATH_INTERNAL_H

/* No fused multiply-adds unless written: with them the compiler may fuse
   x*y + acc in one loop variant (contiguous, vectorised) and not in
   another (strided), and a sum would then depend on the layout. Math
   results must be the same bits for every layout and thread count. */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <stddef.h>
#include "th_error.h"
#include "th_iter.h"
#include "th_math.h"

/* below this many elements a split costs more than it saves. The loops
   below read it from th_par_min, which every caller declares:
   TH_MATH_PAR_CHEAP for ops of a few instructions an element (arithmetic,
   compares, rounding, sqrt), TH_MATH_PAR_COSTLY for a libm call or an
   integer division each. Cheap ops are memory-bound and a sleeping
   partner thread takes tens of microseconds to wake (measurements:
   docs/dev/benchmark-notes.md, th_math_internal.h). */
#define TH_MATH_PAR_CHEAP 1048576
#define TH_MATH_PAR_COSTLY 32768
/* the same for a cheap loop run by th_pool's helpers (the float and double
   add): they stay awake between the ops of a network step, and when they
   sleep the caller runs the chunks itself instead of waiting */
#define TH_MATH_PAR_POOL 262144

/* a double as int64: see th_dtype_to_int64 */
static inline int64_t th_math_to_int64(double v) { return th_dtype_to_int64(v); }

/* --- results ---------------------------------------------------------------- */

/* where a kernel writes: the caller's r, or a temporary when r shares a
   storage with an input in a way that would let the kernel overwrite
   elements it has not read yet */
typedef struct th_math_out {
  th_tensor *r;
  th_tensor *out;   /* r or &tmp */
  th_tensor tmp;
  int ndim;
  int64_t size[TH_MAXDIM];
} th_math_out;

/* Picks the output for a result of shape (ndim, size). inputs[0..nsafe-1]
   may be r itself (the same view: element i only feeds element i); the
   other inputs must not share r's storage at all (a matrix product reads
   whole rows). force_temp asks for a contiguous temporary regardless.
   r is resized now unless a temporary is used, in which case it is resized
   by th_math_out_end, after the kernel has read the inputs (r may be one). */
int th_math_out_begin(th_math_out *o, th_tensor *r, int ndim, const int64_t *size,
                      const th_tensor *const *inputs, int ninputs, int nsafe, int force_temp);
/* on rc == TH_OK copies a temporary into r; always releases it; returns rc */
int th_math_out_end(th_math_out *o, int rc);

/* --- checks (messages as in th_math.h: no operation name) -------------------- */

int th_math_need_floating(const th_tensor *t);
/* r may take results: no dimension of size > 1 with stride 0 (an expanded
   tensor would receive several answers in one element); 'what' names r */
int th_math_writable_result(const th_tensor *r, const char *what);
/* a number used with an integer tensor must convert: NaN and inf do not */
int th_math_check_value(th_dtype dtype, double value);
/* b has a's type; 'what' names b in the message ("tensor2") */
int th_math_same_type(const th_tensor *a, const th_tensor *b, const char *what);
int th_math_same_numel(const th_tensor *a, const th_tensor *b);
/* threads for a th_pool job: torch.getnumthreads() (a job started inside
   another's chunk runs on its caller alone: th_pool.h) */
int th_math_threads(void);
/* the same view of the same storage */
int th_math_same_view(const th_tensor *a, const th_tensor *b);
/* t with dimension dim cut to size 1: walking it visits every row along dim;
   borrows t's storage (no reference), for use within one call */
th_tensor th_math_rowview(const th_tensor *t, int dim);

/* --- element loops ---------------------------------------------------------- */

/* How TH_MAP's contiguous loops are split. A kernel using TH_MAP takes
   'th_math_span *th_span' (the name the loops read, like th_par_min) and
   is called through th_math_map_run: first for the whole tensor (hi < 0),
   where a contiguous loop of th_par_min elements or more, with threads to
   spare, runs nothing but records its length and sets 'split'; then
   th_math_map_run calls the kernel again for blocks [lo, hi) over th_pool.
   Whatever a kernel does before its loop runs again per block unless it
   tests th_math_span_whole. A kernel runs exactly one TH_MAP per call. */
typedef struct th_math_span {
  int64_t lo, hi, n;
  int split;
} th_math_span;
#define th_math_span_whole(s) ((s)->hi < 0)
/* runs kernel(arg, span) as above; returns its result */
int th_math_map_run(int (*kernel)(void *arg, th_math_span *span), void *arg);

/* the bounds of a contiguous loop of n_ elements: the block asked for, or
   the whole loop; 'break's out of TH_MAP after asking for a split */
#define TH_MAP_RANGE_(n_, lo_, hi_)                                            \
  if (!th_math_span_whole(th_span)) {                                        \
    lo_ = th_span->lo, hi_ = th_span->hi;                                    \
  } else if (n_ >= th_par_min && th_math_threads() > 1) {                    \
    th_span->n = n_, th_span->split = 1;                                     \
    break;                                                                   \
  }

#define TH_MAP2(TR, r, RT, TA, a, AT, CODE)                                  \
  do {                                                                       \
    const th_tensor *mr_ = (RT), *ma_ = (AT);                                \
    if (th_tensor_is_contiguous(mr_) && th_tensor_is_contiguous(ma_)) {      \
      TR *rb_ = (TR *)th_tensor_data(mr_);                                   \
      TA *ab_ = (TA *)th_tensor_data(ma_);                                   \
      const int64_t n_ = th_tensor_numel(mr_);                               \
      int64_t i_, lo_ = 0, hi_ = n_;                                         \
      TH_MAP_RANGE_(n_, lo_, hi_)                                            \
      for (i_ = lo_; i_ < hi_; i_++) {                                       \
        TR *r = rb_ + i_;                                                    \
        TA *a = ab_ + i_;                                                    \
        CODE                                                                 \
      }                                                                      \
    } else {                                                                 \
      TH_APPLY2(TR, r, mr_, TA, a, ma_, CODE);                               \
    }                                                                        \
  } while (0)

#define TH_MAP3(TR, r, RT, TA, a, AT, TB, b, BT, CODE)                       \
  do {                                                                       \
    const th_tensor *mr_ = (RT), *ma_ = (AT), *mb_ = (BT);                   \
    if (th_tensor_is_contiguous(mr_) && th_tensor_is_contiguous(ma_) &&      \
        th_tensor_is_contiguous(mb_)) {                                      \
      TR *rb_ = (TR *)th_tensor_data(mr_);                                   \
      TA *ab_ = (TA *)th_tensor_data(ma_);                                   \
      TB *bb_ = (TB *)th_tensor_data(mb_);                                   \
      const int64_t n_ = th_tensor_numel(mr_);                               \
      int64_t i_, lo_ = 0, hi_ = n_;                                         \
      TH_MAP_RANGE_(n_, lo_, hi_)                                            \
      for (i_ = lo_; i_ < hi_; i_++) {                                       \
        TR *r = rb_ + i_;                                                    \
        TA *a = ab_ + i_;                                                    \
        TB *b = bb_ + i_;                                                    \
        CODE                                                                 \
      }                                                                      \
    } else {                                                                 \
      TH_APPLY3(TR, r, mr_, TA, a, ma_, TB, b, mb_, CODE);                   \
    }                                                                        \
  } while (0)

#define TH_MAP4(TR, r, RT, TA, a, AT, TB, b, BT, TC, c, CT, CODE)            \
  do {                                                                       \
    const th_tensor *mt_[4];                                                 \
    mt_[0] = (RT), mt_[1] = (AT), mt_[2] = (BT), mt_[3] = (CT);              \
    if (th_tensor_is_contiguous(mt_[0]) && th_tensor_is_contiguous(mt_[1]) && \
        th_tensor_is_contiguous(mt_[2]) && th_tensor_is_contiguous(mt_[3])) { \
      TR *rb_ = (TR *)th_tensor_data(mt_[0]);                                \
      TA *ab_ = (TA *)th_tensor_data(mt_[1]);                                \
      TB *bb_ = (TB *)th_tensor_data(mt_[2]);                                \
      TC *cb_ = (TC *)th_tensor_data(mt_[3]);                                \
      const int64_t n_ = th_tensor_numel(mt_[0]);                            \
      int64_t i_, lo_ = 0, hi_ = n_;                                         \
      TH_MAP_RANGE_(n_, lo_, hi_)                                            \
      for (i_ = lo_; i_ < hi_; i_++) {                                       \
        TR *r = rb_ + i_;                                                    \
        TA *a = ab_ + i_;                                                    \
        TB *b = bb_ + i_;                                                    \
        TC *c = cb_ + i_;                                                    \
        CODE                                                                 \
      }                                                                      \
    } else {                                                                 \
      th_iter it_;                                                           \
      th_iter_init(&it_, 4, mt_);                                            \
      while (th_iter_next(&it_)) {                                           \
        TR *r = (TR *)it_.p[0];                                              \
        TA *a = (TA *)it_.p[1];                                              \
        TB *b = (TB *)it_.p[2];                                              \
        TC *c = (TC *)it_.p[3];                                              \
        int64_t i_;                                                          \
        for (i_ = 0; i_ < it_.inner; i_++, r += it_.istride[0],              \
             a += it_.istride[1], b += it_.istride[2], c += it_.istride[3])  \
        { CODE }                                                             \
      }                                                                      \
    }                                                                        \
  } while (0)

#endif
