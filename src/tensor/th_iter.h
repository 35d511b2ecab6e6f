/*
** th_iter.h: walking up to TH_ITER_MAX tensors of equal element count
** in step, whatever their strides.
** The walk is split into rows: 'inner' elements apart by 'istride[k]'
** in tensor k. Dimensions that are contiguous in every tensor are merged,
** so contiguous tensors make one long row (the kernels' fast path).
** Tensors of different shapes but equal numel (Torch7 allows a 2x3 += 6)
** are walked in row-major element order, as Torch7 does.
*/
#ifndef TH_ITER_H
#define TH_ITER_H

#include "th_tensor.h"

#define TH_ITER_MAX 4

typedef struct th_iter {
  int nt;
  int ndim;                               /* merged dims, the last is the row */
  int64_t size[TH_MAXDIM];
  int64_t stride[TH_ITER_MAX][TH_MAXDIM];
  int64_t counter[TH_MAXDIM];
  char *base[TH_ITER_MAX];
  size_t esize[TH_ITER_MAX];
  int64_t rows_left;
  int64_t inner;                          /* elements per row */
  int64_t istride[TH_ITER_MAX];           /* element step within a row */
  char *p[TH_ITER_MAX];                   /* row start, set by th_iter_next */
  /* fallback for mismatched shapes: element-by-element with own counters */
  int mismatched;
  const th_tensor *t[TH_ITER_MAX];
  int64_t lin;
} th_iter;

/* fails (th_error) if the tensors' element counts differ */
int th_iter_init(th_iter *it, int nt, const th_tensor *const *ts);
/* advances to the next row; returns 0 when done */
int th_iter_next(th_iter *it);

/* loops over two tensors, with pointers 'a' (type TA) and 'b' (type TB)
   stepping element by element; CODE runs once per element */
#define TH_APPLY2(TA, a, TA_T, TB, b, TB_T, CODE)                         \
  do {                                                                   \
    th_iter it_;                                                         \
    const th_tensor *ts_[2];                                             \
    ts_[0] = (TA_T), ts_[1] = (TB_T);                                    \
    th_iter_init(&it_, 2, ts_);                                          \
    while (th_iter_next(&it_)) {                                         \
      TA *a = (TA *)it_.p[0];                                            \
      TB *b = (TB *)it_.p[1];                                            \
      const int64_t sa_ = it_.istride[0], sb_ = it_.istride[1];          \
      int64_t i_;                                                        \
      if (sa_ == 1 && sb_ == 1) {                                        \
        for (i_ = 0; i_ < it_.inner; i_++, a++, b++) { CODE }            \
      } else {                                                           \
        for (i_ = 0; i_ < it_.inner; i_++, a += sa_, b += sb_) { CODE }  \
      }                                                                  \
    }                                                                    \
  } while (0)

#define TH_APPLY1(TA, a, TA_T, CODE)                                      \
  do {                                                                   \
    th_iter it_;                                                         \
    const th_tensor *ts_[1];                                             \
    ts_[0] = (TA_T);                                                     \
    th_iter_init(&it_, 1, ts_);                                          \
    while (th_iter_next(&it_)) {                                         \
      TA *a = (TA *)it_.p[0];                                            \
      const int64_t sa_ = it_.istride[0];                                \
      int64_t i_;                                                        \
      if (sa_ == 1) {                                                    \
        for (i_ = 0; i_ < it_.inner; i_++, a++) { CODE }                 \
      } else {                                                           \
        for (i_ = 0; i_ < it_.inner; i_++, a += sa_) { CODE }            \
      }                                                                  \
    }                                                                    \
  } while (0)

#define TH_APPLY3(TA, a, TA_T, TB, b, TB_T, TC, c, TC_T, CODE)            \
  do {                                                                   \
    th_iter it_;                                                         \
    const th_tensor *ts_[3];                                             \
    ts_[0] = (TA_T), ts_[1] = (TB_T), ts_[2] = (TC_T);                   \
    th_iter_init(&it_, 3, ts_);                                          \
    while (th_iter_next(&it_)) {                                         \
      TA *a = (TA *)it_.p[0];                                            \
      TB *b = (TB *)it_.p[1];                                            \
      TC *c = (TC *)it_.p[2];                                            \
      const int64_t sa_ = it_.istride[0], sb_ = it_.istride[1],          \
                    sc_ = it_.istride[2];                                \
      int64_t i_;                                                        \
      if (sa_ == 1 && sb_ == 1 && sc_ == 1) {                            \
        for (i_ = 0; i_ < it_.inner; i_++, a++, b++, c++) { CODE }       \
      } else {                                                           \
        for (i_ = 0; i_ < it_.inner; i_++, a += sa_, b += sb_, c += sc_) \
        { CODE }                                                         \
      }                                                                  \
    }                                                                    \
  } while (0)

#endif
