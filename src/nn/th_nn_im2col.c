/*
** th_nn_im2col.c: im2col and col2im, the lowering that turns a
** convolution into one matrix product per image (see th_nn_internal.h for
** the column layout). Inner loops run along contiguous rows; stride-1
** windows over a same-size output copy whole shifted planes at once.
*/
#include <string.h>
#include "th_nn_internal.h"
#include "../tensor/th_cpu.h"

/* valid output columns [*lo, *hi) for kernel offset j: 0 <= x*d - pad + j < W */
static void valid_range(int64_t W, int64_t oW, int64_t d, int64_t pad, int64_t j, int64_t *lo,
                        int64_t *hi) {
  int64_t a = pad - j, b = W - 1 + pad - j;
  *lo = a <= 0 ? 0 : (a + d - 1) / d;
  *hi = b < 0 ? 0 : b / d + 1;
  if (*hi > oW) *hi = oW;
  if (*lo > *hi) *lo = *hi;
}

int64_t th_nn_tile_rows(int64_t K, int64_t oH, int64_t oW, int64_t elems) {
  int64_t rows = elems / (K * oW), tiles;
  if (rows < 1) rows = 1;
  if (rows >= oH) return oH;
  /* even tiles: no thin last tile that would make a narrow gemm */
  tiles = (oH + rows - 1) / rows;
  return (oH + tiles - 1) / tiles;
}

/* col2im's split rows for strides 2-4 (generic/im2col.c): up to
   COL2IM_KMAX kernel columns, rows of up to COL2IM_ROW_MAX elements (on
   the stack); wider ones take the element-by-element path */
#define COL2IM_KMAX 16
#define COL2IM_ROW_MAX 1024

/* entries per phase: every m with m * dW + r < padW + W, and every x + j /
   dW a column adds to */
static int64_t col2im_phase_len(int64_t W, int64_t oW, int64_t kW, int64_t dW, int64_t padW) {
  const int64_t a = oW + (kW - 1) / dW, b = (padW + W + dW - 1) / dW;
  return a > b ? a : b;
}

#define TH_GENERIC_FILE "../nn/generic/im2col.c"
#include "../tensor/th_generic_floating.h"
