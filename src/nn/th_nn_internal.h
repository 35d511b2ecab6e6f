/*
** th_nn_internal.h: what the spatial nn kernel files share and nothing
** outside src/nn needs: argument checks that produce the house error
** messages, contiguous temporaries, the thread policy, and im2col/col2im.
*/
#ifndef TH_NN_INTERNAL_H
#define TH_NN_INTERNAL_H

#include "th_nn.h"
#include "../tensor/th_error.h"
#include "../tensor/th_pool.h"

/* TH_ERR unless t is a tensor of dtype 'dt': names 'what' and the types */
int th_nn_check_type(const th_tensor *t, th_dtype dt, const char *what);
/* TH_ERR unless t is a FloatTensor or DoubleTensor; 'what' names it */
int th_nn_check_floating(const th_tensor *t, const char *what);
/* TH_ERR unless t has ref's dtype and element count ("gradOutput must be
   a torch.FloatTensor like the input, ...") */
int th_nn_check_like(const th_tensor *t, const th_tensor *ref, const char *what,
                     const char *refwhat);
/* TH_ERR unless the window has positive kernel and stride, non-negative padding */
int th_nn_check_window(const th_nn_window *w);
/* TH_ERR unless t has exactly the sizes of 'like' ("gradOutput must be 2x3x4x4 (...), got ...") */
int th_nn_check_same_size(const th_tensor *t, const th_tensor *like, const char *what,
                          const char *likewhat);

/* TH_ERR unless 'bias' is NULL or a tensor of dtype 'dt' with n elements;
   'what' names it, 'planes' names n ("bias must have 8 elements
   (nOutputPlane), got 7") */
int th_nn_check_bias(const th_tensor *bias, th_dtype dt, int64_t n, const char *planes,
                     const char *what);
/* a spatial layer's output sizes, [B,] C, H, W (B for a batch only);
   returns the dimension count */
int th_nn_out_sizes(int batch, int64_t B, int64_t C, int64_t H, int64_t W, int64_t *size);
/* TH_ERR unless gradOutput has dtype 'dt' and those output sizes */
int th_nn_check_grad_output(const th_tensor *gradOutput, th_dtype dt, int batch, int64_t B,
                            int64_t C, int64_t H, int64_t W);
/* input's sizes with its last n replaced by last[0 .. n-1] (a pooling or
   padding layer's output); returns the dimension count */
int th_nn_sizes_like(const th_tensor *input, int n, const int64_t *last, int64_t *size);
/* TH_ERR unless gradOutput has dtype 'dt' and the nd sizes 'size' */
int th_nn_check_grad_sizes(const th_tensor *gradOutput, th_dtype dt, int nd, const int64_t *size);
/* TH_ERR unless indices is a LongTensor */
int th_nn_check_indices(const th_tensor *indices);

/* 'tmp' (initialised by the caller, cleared by the caller) becomes src when
   contiguous, else a contiguous copy: read-only operands of the kernels */
int th_nn_contiguous(th_tensor *tmp, const th_tensor *src);

/* Thread policy: images of a batch are spread over th_pool's threads
   (th_pool_run_slot: each participant's slot indexes its column buffer),
   each calling single-threaded BLAS; a single image runs on one thread
   with multi-threaded BLAS. Returns how many threads to use for 'nitems'
   independent images of 'work' operations each: 1 when the whole job is
   too small to pay for waking threads. */
int th_nn_threads_for(int64_t nitems, int64_t work);
/* threads for a memory-bound loop over 'elems' elements: all of them above
   'min', else 1 (a job started inside another's chunk runs serially anyway) */
int th_nn_threads_over(int64_t elems, int64_t min);
/* Per-thread scratch ('finput', 'fgradInput', LRN's ratio) for a batch of
   'batch' images run on 'nt' threads: from a batch of twice the most
   threads on, its size is the layer's worst case (every thread, the widest
   tile) and so does not depend on the batch; below, it is what the call
   needs. The memory planner predicts sizes at the real batch from traces
   at small batches from that point on (optnet's smallTrace), which a size
   depending on how many threads a batch wakes, or on how images are
   grouped, would defeat. th_nn_scratch_full says which regime 'batch' is
   in; th_nn_scratch_rows gives the rows (threads) to allocate. */
int th_nn_scratch_full(int64_t batch);
int th_nn_scratch_rows(int64_t batch, int nt);
/* memory-bound element-wise loops not measured one by one (bias sums,
   padding, upsampling, unpooling, ...) go over th_pool above this many
   elements. Below, a second
   thread saves at most a fraction of a millisecond, and on a busy machine
   a sleeping partner can wait milliseconds for a core */
#ifndef TH_NN_PAR_MIN_ELEMS
#define TH_NN_PAR_MIN_ELEMS 2097152
#endif
/* Per kernel kind, the size (elements; reads for pooling forward, outputs
   for max pooling backward) from which a second thread paid in `make
   bench-layers`; batch norm's is lower than its isolated figure because in
   a step its planes arrive cold (measurements: docs/dev/benchmark-notes.md,
   section th_nn_internal.h) */
#ifndef TH_NN_PAR_MIN_BN
#define TH_NN_PAR_MIN_BN 131072
#endif
#ifndef TH_NN_PAR_MIN_POOL
#define TH_NN_PAR_MIN_POOL 65536
#endif
#ifndef TH_NN_PAR_MIN_POOL_BWD
#define TH_NN_PAR_MIN_POOL_BWD 262144
#endif
#ifndef TH_NN_PAR_MIN_CHEAP
#define TH_NN_PAR_MIN_CHEAP 2097152
#endif

/* the contiguous loops of the pointwise kernels (generic/activation.c,
   generic/pointwise.c): CODE for elements i_ in [lo, hi), with y = y0 + i_
   and x = x0 + i_ (forward), or g, go, r from g0, go0, r0 (backward) */
#define TH_NN_RANGE2(CODE)                                               \
  for (i_ = lo; i_ < hi; i_++) {                                         \
    real *y = y0 + i_;                                                   \
    const real *x = x0 + i_;                                             \
    CODE                                                                 \
  }
#define TH_NN_RANGE3(CODE)                                               \
  for (i_ = lo; i_ < hi; i_++) {                                         \
    real *g = g0 + i_;                                                   \
    const real *go = go0 + i_, *r = r0 + i_;                             \
    CODE                                                                 \
  }

/* switch OpenBLAS to one thread around a th_pool job; returns the old count */
int th_nn_blas_single_begin(void);
void th_nn_blas_single_end(int old);

/* im2col: image C x H x W -> columns (C*kH*kW) x ((y1-y0)*oW) for the output
   rows y0 <= y < y1 (0 and oH: the whole image); row (c*kH + i)*kW + j,
   column (y - y0)*oW + x holds in[c][y*dH - padH + i][x*dW - padW + j]
   (0 in the padding). Rows are 'ld' apart (ld >= (y1-y0)*oW: several
   images' columns can sit side by side in one matrix). col2im ADDS such
   columns back into the image (which the caller zeroes first). Tiles of
   rows keep the columns cache-sized. */
void th_nn_im2col_Float(const float *in, int64_t C, int64_t H, int64_t W, int64_t oH,
                        int64_t oW, const th_nn_window *w, int64_t y0, int64_t y1, float *col,
                        int64_t ld);
void th_nn_im2col_Double(const double *in, int64_t C, int64_t H, int64_t W, int64_t oH,
                         int64_t oW, const th_nn_window *w, int64_t y0, int64_t y1, double *col,
                         int64_t ld);
void th_nn_col2im_Float(const float *col, int64_t C, int64_t H, int64_t W, int64_t oH,
                        int64_t oW, const th_nn_window *w, int64_t y0, int64_t y1, float *in,
                        int64_t ld);
void th_nn_col2im_Double(const double *col, int64_t C, int64_t H, int64_t W, int64_t oH,
                         int64_t oW, const th_nn_window *w, int64_t y0, int64_t y1, double *in,
                         int64_t ld);
/* Winograd F(2x2,3x3) and F(4x4,3x3), m = 2 or 4 (th_nn_winograd.c;
   th_nn_winograd_chosen in th_nn.h):
   its three phases on contiguous operands of a checked geometry.
   'finput' / 'fgradInput' are resized to the transformed kernel and the
   threads' block buffers. The caller resizes output and gradInput;
   gradWeight is accumulated into (scaled), gradBias left to the caller. */
int th_nn_winograd_forward(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                           const th_tensor *bias, th_tensor *finput, const th_nn_window *w,
                           int m, int64_t B, int64_t nIn, int64_t nOut);
int th_nn_winograd_backward_input(const th_tensor *gradOutput, th_tensor *gradInput,
                                  const th_tensor *weight, th_tensor *fgradInput,
                                  const th_nn_window *w, int m, int64_t B, int64_t nIn,
                                  int64_t nOut);
int th_nn_winograd_backward_params(const th_tensor *input, const th_tensor *gradOutput,
                                   th_tensor *gradWeight, th_tensor *fgradInput,
                                   const th_nn_window *w, int m, int64_t B, int64_t nIn,
                                   int64_t nOut, double scale);

/* direct convolution (th_nn_convdirect.c; th_nn_convdirect_chosen in
   th_nn.h), float, contiguous operands of a checked geometry that it
   chose (stride 1, odd kernel, "same" padding; or stride 2 with a
   ceil(n / 2) output, th_nn_convdirect_strided_chosen). 'finput' / 'fgradInput' hold the packed kernel (forward,
   gradInput) or the threads' partial gradWeights; gradWeight is
   accumulated into (scaled), gradBias left to the caller. */
int64_t th_nn_convdirect_scratch(int phase, int64_t B, int64_t nIn, int64_t nOut, int64_t T);
int th_nn_convdirect_forward(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                          const th_tensor *bias, th_tensor *finput, const th_nn_window *w,
                          int64_t B, int64_t nIn, int64_t nOut);
int th_nn_convdirect_backward_input(const th_tensor *gradOutput, th_tensor *gradInput,
                                 const th_tensor *weight, th_tensor *fgradInput,
                                 const th_nn_window *w, int64_t B, int64_t nIn, int64_t nOut);
int th_nn_convdirect_backward_params(const th_tensor *input, const th_tensor *gradOutput,
                                  th_tensor *gradWeight, th_tensor *fgradInput,
                                  const th_nn_window *w, int64_t B, int64_t nIn, int64_t nOut,
                                  double scale);

/* output rows per im2col tile so that a tile holds about 'elems' elements */
int64_t th_nn_tile_rows(int64_t K, int64_t oH, int64_t oW, int64_t elems);

#endif
