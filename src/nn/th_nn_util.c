/*
** th_nn_util.c: argument checks, contiguous temporaries and the thread
** policy shared by the spatial nn kernels (see th_nn_internal.h).
** OpenBLAS (the pthread build Debian ships) must not run its own threads
** inside th_pool's chunks: the jobs switch it to one thread and back.
*/
#include <cblas.h>
#include "th_nn_internal.h"

int th_nn_check_type(const th_tensor *t, th_dtype dt, const char *what) {
  if (t->dtype != dt)
    return th_error_set("%s must be a torch.%sTensor (the module's type), got torch.%sTensor",
                        what, th_dtype_name[dt], th_dtype_name[t->dtype]);
  return TH_OK;
}

int th_nn_check_window(const th_nn_window *w) {
  if (w->kW < 1 || w->kH < 1)
    return th_error_set("kernel size must be positive, got %lldx%lld", (long long)w->kW,
                        (long long)w->kH);
  if (w->dW < 1 || w->dH < 1)
    return th_error_set("stride must be positive, got %lld,%lld", (long long)w->dW,
                        (long long)w->dH);
  if (w->padW < 0 || w->padH < 0)
    return th_error_set("padding must be non-negative, got %lld,%lld", (long long)w->padW,
                        (long long)w->padH);
  return TH_OK;
}

int th_nn_check_same_size(const th_tensor *t, const th_tensor *like, const char *what,
                          const char *likewhat) {
  char a[128], b[128];
  if (!th_tensor_same_size(t, like))
    return th_error_set("%s must be %s (%s), got %s", what, th_tensor_sizestr(like, a, sizeof a),
                        likewhat, th_tensor_sizestr(t, b, sizeof b));
  return TH_OK;
}

int th_nn_check_floating(const th_tensor *t, const char *what) {
  if (!TH_IS_FLOATING(t->dtype))
    return th_error_set("%s must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        what, th_dtype_name[t->dtype]);
  return TH_OK;
}

int th_nn_check_like(const th_tensor *t, const th_tensor *ref, const char *what,
                     const char *refwhat) {
  char a[128], b[128];
  if (t->dtype != ref->dtype)
    return th_error_set("%s must be a torch.%sTensor like the %s, got torch.%sTensor", what,
                        th_dtype_name[ref->dtype], refwhat, th_dtype_name[t->dtype]);
  if (th_tensor_numel(t) != th_tensor_numel(ref))
    return th_error_set("%s must have as many elements as the %s (%s, %lld), got %s (%lld)", what,
                        refwhat, th_tensor_sizestr(ref, a, sizeof a),
                        (long long)th_tensor_numel(ref), th_tensor_sizestr(t, b, sizeof b),
                        (long long)th_tensor_numel(t));
  return TH_OK;
}

int th_nn_check_bias(const th_tensor *bias, th_dtype dt, int64_t n, const char *planes,
                     const char *what) {
  char a[128];
  if (bias == NULL) return TH_OK;
  if (th_nn_check_type(bias, dt, what) != TH_OK) return TH_ERR;
  if (th_tensor_numel(bias) != n)
    return th_error_set("%s must have %lld elements (%s), got %s", what, (long long)n, planes,
                        th_tensor_sizestr(bias, a, sizeof a));
  return TH_OK;
}

int th_nn_out_sizes(int batch, int64_t B, int64_t C, int64_t H, int64_t W, int64_t *size) {
  int d = 0;
  if (batch) size[d++] = B;
  size[d++] = C;
  size[d++] = H;
  size[d++] = W;
  return d;
}

int th_nn_check_grad_output(const th_tensor *gradOutput, th_dtype dt, int batch, int64_t B,
                            int64_t C, int64_t H, int64_t W) {
  int64_t size[4];
  return th_nn_check_grad_sizes(gradOutput, dt, th_nn_out_sizes(batch, B, C, H, W, size), size);
}

int th_nn_sizes_like(const th_tensor *input, int n, const int64_t *last, int64_t *size) {
  int d, k;
  for (d = 0; d < input->ndim - n; d++) size[d] = input->size[d];
  for (k = 0; k < n; k++) size[d++] = last[k];
  return d;
}

int th_nn_check_grad_sizes(const th_tensor *gradOutput, th_dtype dt, int nd, const int64_t *size) {
  th_tensor like;
  int d;
  if (th_nn_check_type(gradOutput, dt, "gradOutput") != TH_OK) return TH_ERR;
  th_tensor_init(&like, dt);
  like.ndim = nd;
  for (d = 0; d < nd; d++) like.size[d] = size[d];
  return th_nn_check_same_size(gradOutput, &like, "gradOutput", "the output size");
}

int th_nn_check_indices(const th_tensor *indices) {
  if (indices->dtype != TH_LONG)
    return th_error_set("indices must be a torch.LongTensor, got torch.%sTensor",
                        th_dtype_name[indices->dtype]);
  return TH_OK;
}

int th_nn_contiguous(th_tensor *tmp, const th_tensor *src) {
  return th_tensor_contiguous(tmp, src);
}

/* below this many operations a th_pool job costs more than it saves
   (a wake-up is microseconds, milliseconds when another process holds a core) */
#define TH_NN_PARALLEL_MIN_WORK 2000000

int th_nn_scratch_full(int64_t batch) {
  return batch >= 2 * (int64_t)th_pool_threads();
}

int th_nn_scratch_rows(int64_t batch, int nt) {
  return th_nn_scratch_full(batch) ? th_pool_threads() : nt;
}

int th_nn_threads_for(int64_t nitems, int64_t work) {
  const int64_t n = th_pool_threads();
  if (nitems < 2 || (double)nitems * (double)work < TH_NN_PARALLEL_MIN_WORK) return 1;
  return (int)(n < nitems ? n : nitems);
}

int th_nn_threads_over(int64_t elems, int64_t min) {
  return elems <= min ? 1 : th_pool_threads();
}

int th_nn_blas_single_begin(void) {
  int old = openblas_get_num_threads();
  if (old != 1) openblas_set_num_threads(1);
  return old;
}

void th_nn_blas_single_end(int old) {
  if (old != 1) openblas_set_num_threads(old);
}
