/*
** th_nn_localsum.c: the zero-padded weighted local sums of the local
** normalization modules (nn.SpatialSubtractiveNormalization,
** nn.SpatialDivisiveNormalization): a "same"-size correlation of each plane
** with an odd kH x kW kernel, and its adjoint for backward. Torch7 builds
** this from SpatialZeroPadding and SpatialConvolution modules; one direct
** loop per plane gives the same sums without their buffers.
*/
#include <string.h>
#include "th_nn_internal.h"
#include "th_nn_spatial.h"

#define TH_GENERIC_FILE "../nn/generic/localsum.c"
#include "../tensor/th_generic_floating.h"

int th_nn_localsum(const th_tensor *input, const th_tensor *kernel, th_tensor *output,
                   int transpose) {
  char a[128];
  th_tensor in, k;
  int rc = TH_ERR;
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (input->ndim != 3 || th_tensor_numel(input) == 0)
    return th_error_set("planes must be 3D (planes x height x width), got %dD %s", input->ndim,
                        th_tensor_sizestr(input, a, sizeof a));
  if (th_nn_check_type(kernel, input->dtype, "kernel") != TH_OK ||
      th_nn_check_type(output, input->dtype, "output") != TH_OK)
    return TH_ERR;
  if (kernel->ndim != 2 || kernel->size[0] % 2 == 0 || kernel->size[1] % 2 == 0)
    return th_error_set("kernel must be 2D with odd sizes, got %dD %s", kernel->ndim,
                        th_tensor_sizestr(kernel, a, sizeof a));
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&k, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_contiguous(&k, kernel) == TH_OK &&
      th_nn_resize_out(output, 3, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, localsum_run, (&in, &k, output, transpose),
                              "local sums");
  th_tensor_clear(&in);
  th_tensor_clear(&k);
  return rc;
}
