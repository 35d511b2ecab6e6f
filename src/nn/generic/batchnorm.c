/* generic/batchnorm.c: batch normalization for 'real' (included by th_nn_batchnorm.c) */

#define V(v, f) (((real *)(v)->p)[(f) * (v)->st])

/* the per-feature loops over its N planes (S apart by FS), as leaf
   functions so that they run with the CPU's widest vectors (th_cpu.h: a
   loop inside a parallel region would not). One call per feature, not per
   plane: ResNet's 8x8 planes are 64 elements, about what a call costs.
   Each plane is summed in 'real' lanes and added to the 'accreal' total in
   plane order (the numbers do not depend on the thread count). */

/* sums of x - shift and of its square */
TH_CPU_CLONES static void TH_R(bn_feature_sums)(const real *x, int64_t N, int64_t S, int64_t FS,
                                                real shift, accreal *sum_, accreal *sq_) {
  accreal sum = 0, sq = 0;
  int64_t i, s;
  for (i = 0; i < N; i++) {
    const real *p = x + i * FS;
    real rs = 0, rq = 0;
    /* simd: lets the compiler split the sums into vector lanes */
#pragma omp simd reduction(+ : rs, rq)
    for (s = 0; s < S; s++) {
      real d = p[s] - shift;
      rs += d;
      rq += d * d;
    }
    sum += rs;
    sq += rq;
  }
  *sum_ = sum;
  *sq_ = sq;
}

TH_CPU_CLONES static void TH_R(bn_feature_affine)(const real *x, real *y, int64_t N, int64_t S,
                                                  int64_t FS, real k, real m) {
  int64_t i, s;
  for (i = 0; i < N; i++) {
    const real *p = x + i * FS;
    real *q = y + i * FS;
    for (s = 0; s < S; s++) q[s] = p[s] * k + m;
  }
}

/* the affine map then ReLU's threshold, as nn.ReLU computes it */
TH_CPU_CLONES static void TH_R(bn_feature_affine_relu)(const real *x, real *y, int64_t N, int64_t S,
                                                       int64_t FS, real k, real m) {
  int64_t i, s;
  for (i = 0; i < N; i++) {
    const real *p = x + i * FS;
    real *q = y + i * FS;
    for (s = 0; s < S; s++) {
      real v = p[s] * k + m;
      q[s] = v > 0 ? v : 0;
    }
  }
}

/* sums of dy and of (x - m) * dy */
TH_CPU_CLONES static void TH_R(bn_feature_grad_sums)(const real *x, const real *dy, int64_t N,
                                                     int64_t S, int64_t FS, real m,
                                                     accreal *sum_, accreal *dotp_) {
  accreal sum = 0, dotp = 0;
  int64_t i, s;
  for (i = 0; i < N; i++) {
    const real *p = x + i * FS, *d = dy + i * FS;
    real rs = 0, rd = 0;
#pragma omp simd reduction(+ : rs, rd)
    for (s = 0; s < S; s++) {
      rs += d[s];
      rd += (p[s] - m) * d[s];
    }
    sum += rs;
    dotp += rd;
  }
  *sum_ = sum;
  *dotp_ = dotp;
}

TH_CPU_CLONES static void TH_R(bn_feature_grad_input)(const real *x, const real *dy, real *dx,
                                                      int64_t N, int64_t S, int64_t FS, real gm,
                                                      real m, real k, real c) {
  int64_t i, s;
  for (i = 0; i < N; i++) {
    const real *p = x + i * FS, *d = dy + i * FS;
    real *q = dx + i * FS;
    for (s = 0; s < S; s++) q[s] = (d[s] - gm - (p[s] - m) * k) * c;
  }
}

typedef struct TH_R(bn_fwd_job) {
  const real *in;
  real *out;
  const vec *w, *b, *rm, *rv, *sm, *ss, *cf;
  const geom *g;
  int train, relu;
  double momentum, eps;
} TH_R(bn_fwd_job);

static void TH_R(bn_fwd_feature)(void *arg, int64_t f) {
  const TH_R(bn_fwd_job) *j = arg;
  const geom *g = j->g;
  const real *in = j->in;
  const int64_t FS = g->F * g->S, n = g->N * g->S;
  const vec *w = j->w, *b = j->b, *rm = j->rm, *rv = j->rv, *sm = j->sm, *ss = j->ss, *cf = j->cf;
  const double momentum = j->momentum;
  accreal mean, invstd;
  real wf = w->p ? V(w, f) : 1, bf = b->p ? V(b, f) : 0, m, k;
  if (j->train) {
    /* one pass over the data: sums of x - shift and of its square, with
       shift a sample of the feature so that the difference of the two
       sums does not cancel catastrophically when |mean| >> std */
    const real shift = in[f * g->S];
    accreal sum, sq, var;
    TH_R(bn_feature_sums)(in + f * g->S, g->N, g->S, FS, shift, &sum, &sq);
    mean = shift + sum / n;
    var = sq - sum * (sum / n);
    if (var < 0) var = 0;
    invstd = (var == 0 && j->eps == 0) ? 0 : 1 / sqrt(var / n + j->eps);
    V(sm, f) = (real)mean;
    V(ss, f) = (real)invstd;
    V(rm, f) = (real)(momentum * mean + (1 - momentum) * V(rm, f));
    V(rv, f) = (real)(momentum * var / (n - 1) + (1 - momentum) * V(rv, f));
  } else {
    mean = V(rm, f);
    invstd = 1 / sqrt((accreal)V(rv, f) + j->eps);
  }
  /* y = x * k + (b - mean * k) with k = invstd * w */
  k = (real)(invstd * wf);
  m = (real)(bf - mean * invstd * wf);
  if (cf->p) {
    V(cf, 2 * f) = k;
    V(cf, 2 * f + 1) = m;
  }
  if (j->relu)
    TH_R(bn_feature_affine_relu)(in + f * g->S, j->out + f * g->S, g->N, g->S, FS, k, m);
  else
    TH_R(bn_feature_affine)(in + f * g->S, j->out + f * g->S, g->N, g->S, FS, k, m);
}

/* features run as th_pool chunks, whose helpers stay awake between the
   layers of a step (th_pool.h) */
static int TH_R(batchnorm_forward)(const th_tensor *input, th_tensor *output, const vec *w,
                                   const vec *b, const vec *rm, const vec *rv, const vec *sm,
                                   const vec *ss, const vec *cf, const geom *g, int train,
                                   double momentum, double eps, int relu) {
  TH_R(bn_fwd_job) j;
  j.in = th_tensor_data(input), j.out = th_tensor_data(output);
  j.w = w, j.b = b, j.rm = rm, j.rv = rv, j.sm = sm, j.ss = ss, j.cf = cf, j.g = g;
  j.train = train, j.relu = relu, j.momentum = momentum, j.eps = eps;
  th_pool_for(th_nn_threads_over(g->N * g->F * g->S, TH_NN_PAR_MIN_BN), g->F,
              TH_R(bn_fwd_feature), &j);
  return TH_OK;
}

/* the forward's output again from the coefficients it kept: the same
   affine loop, so the same bits; with relu clipped in the same pass (what
   an in-place ReLU after it writes) */
typedef struct TH_R(bn_apply_job) {
  const real *in;
  real *out;
  const vec *cf;
  const geom *g;
  int relu;
} TH_R(bn_apply_job);

static void TH_R(bn_apply_feature)(void *arg, int64_t f) {
  const TH_R(bn_apply_job) *j = arg;
  const geom *g = j->g;
  const vec *cf = j->cf;
  const int64_t FS = g->F * g->S;
  if (j->relu)
    TH_R(bn_feature_affine_relu)(j->in + f * g->S, j->out + f * g->S, g->N, g->S, FS,
                                 V(cf, 2 * f), V(cf, 2 * f + 1));
  else
    TH_R(bn_feature_affine)(j->in + f * g->S, j->out + f * g->S, g->N, g->S, FS, V(cf, 2 * f),
                            V(cf, 2 * f + 1));
}

static int TH_R(batchnorm_apply)(const th_tensor *input, th_tensor *output, const vec *cf,
                                 const geom *g, int relu) {
  TH_R(bn_apply_job) j;
  j.in = th_tensor_data(input), j.out = th_tensor_data(output), j.cf = cf, j.g = g, j.relu = relu;
  th_pool_for(th_nn_threads_over(g->N * g->F * g->S, TH_NN_PAR_MIN_BN), g->F,
              TH_R(bn_apply_feature), &j);
  return TH_OK;
}

typedef struct TH_R(bn_bwd_job) {
  const real *in, *go;
  real *gi;
  const vec *gw, *gb, *w, *rm, *rv, *sm, *ss, *st;
  const geom *g;
  int stats_mode, train;
  double scale, eps;
} TH_R(bn_bwd_job);

static void TH_R(bn_bwd_feature)(void *arg, int64_t f) {
  const TH_R(bn_bwd_job) *j = arg;
  const geom *g = j->g;
  const real *in = j->in, *go = j->go;
  real *gi = j->gi;
  const vec *gw = j->gw, *gb = j->gb, *w = j->w, *rm = j->rm, *rv = j->rv, *sm = j->sm;
  const vec *ss = j->ss, *st = j->st;
  const int64_t FS = g->F * g->S, n = g->N * g->S;
  accreal mean, invstd, sum = 0, dotp = 0;
  real wf = w->p ? V(w, f) : 1;
  int64_t i, s;
  if (j->train) {
    mean = V(sm, f);
    invstd = V(ss, f);
  } else {
    mean = V(rm, f);
    invstd = 1 / sqrt((accreal)V(rv, f) + j->eps);
  }
  if (j->stats_mode == TH_NN_STATS_REUSE) {
    sum = V(st, 2 * f);
    dotp = V(st, 2 * f + 1);
  } else {
    TH_R(bn_feature_grad_sums)(in + f * g->S, go + f * g->S, g->N, g->S, FS, (real)mean, &sum,
                               &dotp);
    if (j->stats_mode == TH_NN_STATS_STORE) {
      V(st, 2 * f) = (real)sum;
      V(st, 2 * f + 1) = (real)dotp;
    }
  }
  if (gi) {
    if (j->train) {
      /* dx = (dy - mean(dy) - (x - mean) * dotp * invstd^2 / n) * invstd * w */
      real k = (real)(dotp * invstd * invstd / n), gm = (real)(sum / n);
      real c = (real)(invstd * wf), m = (real)mean;
      TH_R(bn_feature_grad_input)(in + f * g->S, go + f * g->S, gi + f * g->S, g->N, g->S, FS, gm,
                                  m, k, c);
    } else {
      real c = (real)(invstd * wf);
      for (i = 0; i < g->N; i++) {
        const real *dy = go + i * FS + f * g->S;
        real *dx = gi + i * FS + f * g->S;
        for (s = 0; s < g->S; s++) dx[s] = dy[s] * c;
      }
    }
  }
  if (gw->p) V(gw, f) += (real)(j->scale * dotp * invstd);
  if (gb->p) V(gb, f) += (real)(j->scale * sum);
}

static int TH_R(batchnorm_backward)(const th_tensor *input, const th_tensor *gradOutput,
                                    th_tensor *gradInput, const vec *gw, const vec *gb,
                                    const vec *w, const vec *rm, const vec *rv, const vec *sm,
                                    const vec *ss, const vec *st, int stats_mode, const geom *g,
                                    int train, double scale, double eps) {
  TH_R(bn_bwd_job) j;
  /* with the sums reused and no gradInput the loop is F steps: no threads */
  const int heavy = gradInput != NULL || stats_mode != TH_NN_STATS_REUSE;
  j.in = th_tensor_data(input), j.go = th_tensor_data(gradOutput);
  j.gi = gradInput ? th_tensor_data(gradInput) : NULL;
  j.gw = gw, j.gb = gb, j.w = w, j.rm = rm, j.rv = rv, j.sm = sm, j.ss = ss, j.st = st, j.g = g;
  j.stats_mode = stats_mode, j.train = train, j.scale = scale, j.eps = eps;
  th_pool_for(heavy ? th_nn_threads_over(g->N * g->F * g->S, TH_NN_PAR_MIN_BN) : 1, g->F,
              TH_R(bn_bwd_feature), &j);
  return TH_OK;
}

#undef V
