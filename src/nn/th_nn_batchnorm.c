/*
** th_nn_batchnorm.c: batch normalization (nn.BatchNormalization and
** nn.SpatialBatchNormalization), Torch7's THNN semantics: statistics per
** feature (dimension 2) over the batch and all spatial positions;
** save_std holds the INVERSE standard deviation (biased variance + eps);
** running_var is updated with the unbiased variance. Features are
** independent and run in parallel; sums accumulate in double.
*/
#include <math.h>
#include "th_nn_internal.h"
#include "../tensor/th_pool.h"
#include "../tensor/th_cpu.h"

typedef struct geom {
  int64_t N, F, S;   /* input viewed as N x F x S */
} geom;

/* a per-feature vector: F elements of one stride */
typedef struct vec {
  void *p;
  int64_t st;
} vec;

static int check_vec(const th_tensor *t, int64_t F, th_dtype dt, const char *what, vec *v) {
  char a[128];
  v->p = NULL;
  v->st = 0;
  if (t == NULL) return TH_OK;
  if (th_nn_check_type(t, dt, what) != TH_OK) return TH_ERR;
  if (th_tensor_numel(t) != F || !(t->ndim == 1 || th_tensor_is_contiguous(t)))
    return th_error_set("%s must be a vector of %lld elements (one per feature), got %s", what,
                        (long long)F, th_tensor_sizestr(t, a, sizeof a));
  v->p = th_tensor_data(t);
  v->st = t->ndim == 1 ? t->stride[0] : 1;
  return TH_OK;
}

/* A resize may move a storage's data (realloc): when an output shares its
   storage with a vector (an optimized net's arena, a user's views), the
   pointers taken before it dangle. So vectors are checked first, for the
   messages, and pointed at again once every output has its size. */
static void repoint(vec *v, const th_tensor *t) {
  if (t != NULL && v->p != NULL) v->p = th_tensor_data(t);
}

static int check_geom(const th_tensor *input, const th_tensor *running_mean, geom *g) {
  char a[128];
  int d;
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (input->ndim < 2 || th_tensor_numel(input) == 0)
    return th_error_set("input must be at least 2D (batch x feature ...), got %dD %s", input->ndim,
                        th_tensor_sizestr(input, a, sizeof a));
  g->N = input->size[0];
  g->F = input->size[1];
  g->S = 1;
  for (d = 2; d < input->ndim; d++) g->S *= input->size[d];
  if (th_tensor_numel(running_mean) != g->F)
    return th_error_set("input must have %lld features (dimension 2), got %s",
                        (long long)th_tensor_numel(running_mean),
                        th_tensor_sizestr(input, a, sizeof a));
  return TH_OK;
}

/* Features go in blocks (generic/batchnorm.c): a block's planes are read
   in memory order, and its data (bytes per element 'esize' over its
   features) should stay in L2 between the sums and the pass that writes:
   BN_BLOCK_BYTES, at most BN_BLOCK_MAX features (stack arrays). Blocks
   are evened out over the threads; the results do not depend on them. */
#define BN_BLOCK_BYTES (256 * 1024)
#define BN_BLOCK_MAX 256

static int64_t bn_block(const geom *g, size_t esize, int nt, int64_t *nblocks) {
  const double per = (double)g->N * (double)g->S * (double)esize;
  int64_t fb = (int64_t)(BN_BLOCK_BYTES / per), nb;
  if (fb < 1) fb = 1;
  if (fb > BN_BLOCK_MAX) fb = BN_BLOCK_MAX;
  nb = (g->F + fb - 1) / fb;
  nb = (nb + nt - 1) / nt * nt;
  if (nb > g->F) nb = g->F;
  fb = (g->F + nb - 1) / nb;
  *nblocks = (g->F + fb - 1) / fb;
  return fb;
}

#define TH_GENERIC_FILE "../nn/generic/batchnorm.c"
#include "../tensor/th_generic_floating.h"

int th_nn_batchnorm_update_output(const th_tensor *input, th_tensor *output,
                                  const th_tensor *weight, const th_tensor *bias,
                                  th_tensor *running_mean, th_tensor *running_var,
                                  th_tensor *save_mean, th_tensor *save_std, th_tensor *coef,
                                  int train, double momentum, double eps, int relu) {
  geom g;
  vec w, b, rm, rv, sm, ss, cf;
  th_tensor in;
  int rc = TH_ERR;
  th_dtype dt = running_mean->dtype;  /* the module's type */
  char a[128];
  if (check_geom(input, running_mean, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, dt, "input") != TH_OK) return TH_ERR;
  if (check_vec(weight, g.F, dt, "weight", &w) != TH_OK ||
      check_vec(bias, g.F, dt, "bias", &b) != TH_OK ||
      check_vec(running_mean, g.F, dt, "running_mean", &rm) != TH_OK ||
      check_vec(running_var, g.F, dt, "running_var", &rv) != TH_OK ||
      th_nn_check_type(output, dt, "output") != TH_OK ||
      th_nn_check_type(save_mean, dt, "save_mean") != TH_OK ||
      th_nn_check_type(save_std, dt, "save_std") != TH_OK)
    return TH_ERR;
  if (train && g.N * g.S < 2)
    return th_error_set("training needs more than one value per feature, got input %s",
                        th_tensor_sizestr(input, a, sizeof a));
  if (eps < 0) return th_error_set("eps must be non-negative, got %g", eps);
  if (th_tensor_resize1d(save_mean, g.F) != TH_OK || th_tensor_resize1d(save_std, g.F) != TH_OK)
    return TH_ERR;
  if (check_vec(save_mean, g.F, dt, "save_mean", &sm) != TH_OK ||
      check_vec(save_std, g.F, dt, "save_std", &ss) != TH_OK)
    return TH_ERR;
  if (coef != NULL && !train) coef = NULL;
  if (coef != NULL && (th_nn_check_type(coef, dt, "coef") != TH_OK ||
                       th_tensor_resize1d(coef, 2 * g.F) != TH_OK ||
                       check_vec(coef, 2 * g.F, dt, "coef", &cf) != TH_OK))
    return TH_ERR;
  if (coef == NULL) check_vec(NULL, 0, dt, "coef", &cf);
  th_tensor_init(&in, dt);
  if (th_nn_contiguous(&in, input) == TH_OK &&
      th_tensor_resize(output, input->ndim, input->size) == TH_OK) {
    repoint(&w, weight);
    repoint(&b, bias);
    repoint(&rm, running_mean);
    repoint(&rv, running_var);
    repoint(&sm, save_mean);
    repoint(&ss, save_std);
    repoint(&cf, coef);
    rc = TH_DISPATCH_FLOATING(dt, batchnorm_forward,
                              (&in, output, &w, &b, &rm, &rv, &sm, &ss, &cf, &g, train, momentum,
                               eps, relu),
                              "BatchNormalization");
  }
  th_tensor_clear(&in);
  return rc;
}

int th_nn_batchnorm_apply(const th_tensor *input, th_tensor *output, const th_tensor *coef,
                          int relu) {
  geom g;
  vec cf;
  th_tensor in;
  int rc = TH_ERR;
  th_dtype dt = coef->dtype;
  char a[128];
  if (!TH_IS_FLOATING(input->dtype) || input->ndim < 2 || th_tensor_numel(input) == 0)
    return th_error_set("input must be a float or double tensor of at least 2D (batch x feature ...), got %s",
                        th_tensor_sizestr(input, a, sizeof a));
  g.N = input->size[0];
  g.F = input->size[1];
  g.S = 1;
  for (int d = 2; d < input->ndim; d++) g.S *= input->size[d];
  if (th_nn_check_type(input, dt, "input") != TH_OK || th_nn_check_type(output, dt, "output") != TH_OK ||
      check_vec(coef, 2 * g.F, dt, "coef (the coefficients a training forward kept)", &cf) != TH_OK)
    return TH_ERR;
  th_tensor_init(&in, dt);
  if (th_nn_contiguous(&in, input) == TH_OK &&
      th_tensor_resize(output, input->ndim, input->size) == TH_OK) {
    repoint(&cf, coef);
    rc = TH_DISPATCH_FLOATING(dt, batchnorm_apply, (&in, output, &cf, &g, relu), "BatchNormalization");
  }
  th_tensor_clear(&in);
  return rc;
}

int th_nn_batchnorm_backward(const th_tensor *input, const th_tensor *gradOutput,
                             th_tensor *gradInput, th_tensor *gradWeight, th_tensor *gradBias,
                             const th_tensor *weight, const th_tensor *running_mean,
                             const th_tensor *running_var, const th_tensor *save_mean,
                             const th_tensor *save_std, th_tensor *stats, int stats_mode,
                             int train, double scale, double eps) {
  geom g;
  vec w, gw, gb, rm, rv, sm, ss, st;
  th_tensor in, go;
  int rc = TH_ERR;
  th_dtype dt = running_mean->dtype;  /* the module's type */
  if (check_geom(input, running_mean, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, dt, "input") != TH_OK) return TH_ERR;
  if (th_nn_check_type(gradOutput, dt, "gradOutput") != TH_OK ||
      th_nn_check_same_size(gradOutput, input, "gradOutput", "the input size") != TH_OK)
    return TH_ERR;
  if ((gradInput && th_nn_check_type(gradInput, dt, "gradInput") != TH_OK) ||
      check_vec(weight, g.F, dt, "weight", &w) != TH_OK ||
      check_vec(gradWeight, g.F, dt, "gradWeight", &gw) != TH_OK ||
      check_vec(gradBias, g.F, dt, "gradBias", &gb) != TH_OK ||
      check_vec(running_mean, g.F, dt, "running_mean", &rm) != TH_OK ||
      check_vec(running_var, g.F, dt, "running_var", &rv) != TH_OK)
    return TH_ERR;
  if (train && (th_tensor_numel(save_mean) != g.F || th_tensor_numel(save_std) != g.F))
    return th_error_set("save_mean and save_std hold no statistics for this input: run forward in training mode first");
  if (check_vec(train ? save_mean : NULL, g.F, dt, "save_mean", &sm) != TH_OK ||
      check_vec(train ? save_std : NULL, g.F, dt, "save_std", &ss) != TH_OK)
    return TH_ERR;
  if (stats_mode == TH_NN_STATS_STORE && stats != NULL &&
      (th_nn_check_type(stats, dt, "stats") != TH_OK || th_tensor_resize1d(stats, 2 * g.F) != TH_OK))
    return TH_ERR;
  if (stats_mode != TH_NN_STATS_NONE && stats != NULL) {
    if (check_vec(stats, 2 * g.F, dt, "stats", &st) != TH_OK) return TH_ERR;
  } else {
    st.p = NULL;
    st.st = 0;
    stats_mode = TH_NN_STATS_NONE;
  }
  th_tensor_init(&in, dt);
  th_tensor_init(&go, dt);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_contiguous(&go, gradOutput) == TH_OK &&
      (gradInput == NULL || th_tensor_resize(gradInput, input->ndim, input->size) == TH_OK)) {
    repoint(&w, weight);
    repoint(&gw, gradWeight);
    repoint(&gb, gradBias);
    repoint(&rm, running_mean);
    repoint(&rv, running_var);
    repoint(&sm, train ? save_mean : NULL);
    repoint(&ss, train ? save_std : NULL);
    repoint(&st, stats_mode != TH_NN_STATS_NONE ? stats : NULL);
    rc = TH_DISPATCH_FLOATING(dt, batchnorm_backward,
                              (&in, &go, gradInput, &gw, &gb, &w, &rm, &rv, &sm, &ss, &st,
                               stats_mode, &g, train, scale, eps),
                              "BatchNormalization");
  }
  th_tensor_clear(&in);
  th_tensor_clear(&go);
  return rc;
}
