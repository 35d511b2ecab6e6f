/* generic/batchnorm.c: batch normalization for 'real' (included by th_nn_batchnorm.c) */

#define V(v, f) (((real *)(v)->p)[(f) * (v)->st])

/* the per-feature loops over its N planes (S apart by FS), as leaf
   functions so that they run with the CPU's widest vectors (th_cpu.h: a
   loop inside the OpenMP region would not). One call per feature, not per
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

static int TH_R(batchnorm_forward)(const th_tensor *input, th_tensor *output, const vec *w,
                                   const vec *b, const vec *rm, const vec *rv, const vec *sm,
                                   const vec *ss, const vec *cf, const geom *g, int train,
                                   double momentum, double eps, int relu) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  const int64_t FS = g->F * g->S, n = g->N * g->S;
  int64_t f;
#pragma omp parallel for if (g->N * FS > TH_NN_PAR_MIN_BN)
  for (f = 0; f < g->F; f++) {
    accreal mean, invstd;
    real wf = w->p ? V(w, f) : 1, bf = b->p ? V(b, f) : 0, m, k;
    if (train) {
      /* one pass over the data: sums of x - shift and of its square, with
         shift a sample of the feature so that the difference of the two
         sums does not cancel catastrophically when |mean| >> std */
      const real shift = in[f * g->S];
      accreal sum, sq, var;
      TH_R(bn_feature_sums)(in + f * g->S, g->N, g->S, FS, shift, &sum, &sq);
      mean = shift + sum / n;
      var = sq - sum * (sum / n);
      if (var < 0) var = 0;
      invstd = (var == 0 && eps == 0) ? 0 : 1 / sqrt(var / n + eps);
      V(sm, f) = (real)mean;
      V(ss, f) = (real)invstd;
      V(rm, f) = (real)(momentum * mean + (1 - momentum) * V(rm, f));
      V(rv, f) = (real)(momentum * var / (n - 1) + (1 - momentum) * V(rv, f));
    } else {
      mean = V(rm, f);
      invstd = 1 / sqrt((accreal)V(rv, f) + eps);
    }
    /* y = x * k + (b - mean * k) with k = invstd * w */
    k = (real)(invstd * wf);
    m = (real)(bf - mean * invstd * wf);
    if (cf->p) {
      V(cf, 2 * f) = k;
      V(cf, 2 * f + 1) = m;
    }
    if (relu)
      TH_R(bn_feature_affine_relu)(in + f * g->S, out + f * g->S, g->N, g->S, FS, k, m);
    else
      TH_R(bn_feature_affine)(in + f * g->S, out + f * g->S, g->N, g->S, FS, k, m);
  }
  return TH_OK;
}

/* the forward's output again from the coefficients it kept: the same
   affine loop, so the same bits; with relu clipped in the same pass (what
   an in-place ReLU after it writes) */
static int TH_R(batchnorm_apply)(const th_tensor *input, th_tensor *output, const vec *cf,
                                 const geom *g, int relu) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  const int64_t FS = g->F * g->S;
  int64_t f;
#pragma omp parallel for if (g->N * FS > TH_NN_PAR_MIN_BN)
  for (f = 0; f < g->F; f++) {
    if (relu)
      TH_R(bn_feature_affine_relu)(in + f * g->S, out + f * g->S, g->N, g->S, FS, V(cf, 2 * f),
                                   V(cf, 2 * f + 1));
    else
      TH_R(bn_feature_affine)(in + f * g->S, out + f * g->S, g->N, g->S, FS, V(cf, 2 * f),
                              V(cf, 2 * f + 1));
  }
  return TH_OK;
}

static int TH_R(batchnorm_backward)(const th_tensor *input, const th_tensor *gradOutput,
                                    th_tensor *gradInput, const vec *gw, const vec *gb,
                                    const vec *w, const vec *rm, const vec *rv, const vec *sm,
                                    const vec *ss, const vec *st, int stats_mode, const geom *g,
                                    int train, double scale, double eps) {
  const real *in = th_tensor_data(input), *go = th_tensor_data(gradOutput);
  real *gi = gradInput ? th_tensor_data(gradInput) : NULL;
  const int64_t FS = g->F * g->S, n = g->N * g->S;
  /* with the sums reused and no gradInput the loop is F steps: no threads */
  const int heavy = gi != NULL || stats_mode != TH_NN_STATS_REUSE;
  int64_t f;
#pragma omp parallel for if (heavy && g->N * FS > TH_NN_PAR_MIN_BN)
  for (f = 0; f < g->F; f++) {
    accreal mean, invstd, sum = 0, dotp = 0;
    real wf = w->p ? V(w, f) : 1;
    int64_t i, s;
    if (train) {
      mean = V(sm, f);
      invstd = V(ss, f);
    } else {
      mean = V(rm, f);
      invstd = 1 / sqrt((accreal)V(rv, f) + eps);
    }
    if (stats_mode == TH_NN_STATS_REUSE) {
      sum = V(st, 2 * f);
      dotp = V(st, 2 * f + 1);
    } else {
      TH_R(bn_feature_grad_sums)(in + f * g->S, go + f * g->S, g->N, g->S, FS, (real)mean, &sum,
                                 &dotp);
      if (stats_mode == TH_NN_STATS_STORE) {
        V(st, 2 * f) = (real)sum;
        V(st, 2 * f + 1) = (real)dotp;
      }
    }
    if (gi) {
      if (train) {
        /* dx = (dy - mean(dy) - (x - mean) * dotp * invstd^2 / n) * invstd * w */
        real k = (real)(dotp * invstd * invstd / n), gm = (real)(sum / n);
        real c = (real)(invstd * wf), m = (real)mean;
        TH_R(bn_feature_grad_input)(in + f * g->S, go + f * g->S, gi + f * g->S, g->N, g->S, FS,
                                    gm, m, k, c);
      } else {
        real c = (real)(invstd * wf);
        for (i = 0; i < g->N; i++) {
          const real *dy = go + i * FS + f * g->S;
          real *dx = gi + i * FS + f * g->S;
          for (s = 0; s < g->S; s++) dx[s] = dy[s] * c;
        }
      }
    }
    if (gw->p) V(gw, f) += (real)(scale * dotp * invstd);
    if (gb->p) V(gb, f) += (real)(scale * sum);
  }
  return TH_OK;
}

#undef V
