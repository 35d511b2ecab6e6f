/* generic/batchnorm.c: batch normalization for 'real' (included by th_nn_batchnorm.c) */

#define V(v, f) (((real *)(v)->p)[(f) * (v)->st])

/* the per-plane loops, as leaf functions so that they run with the CPU's
   widest vectors (th_cpu.h: a loop inside the OpenMP region would not) */

/* sums of x - shift and of its square over one plane of S */
TH_CPU_CLONES static void TH_R(bn_plane_sums)(const real *x, int64_t S, real shift, real *rs_,
                                              real *rq_) {
  real rs = 0, rq = 0;
  int64_t s;
  /* simd: lets the compiler split the sums into vector lanes */
#pragma omp simd reduction(+ : rs, rq)
  for (s = 0; s < S; s++) {
    real d = x[s] - shift;
    rs += d;
    rq += d * d;
  }
  *rs_ = rs;
  *rq_ = rq;
}

TH_CPU_CLONES static void TH_R(bn_plane_affine)(const real *x, real *y, int64_t S, real k,
                                                real m) {
  int64_t s;
  for (s = 0; s < S; s++) y[s] = x[s] * k + m;
}

/* sums of dy and of (x - m) * dy over one plane */
TH_CPU_CLONES static void TH_R(bn_plane_grad_sums)(const real *x, const real *dy, int64_t S,
                                                   real m, real *rs_, real *rd_) {
  real rs = 0, rd = 0;
  int64_t s;
#pragma omp simd reduction(+ : rs, rd)
  for (s = 0; s < S; s++) {
    rs += dy[s];
    rd += (x[s] - m) * dy[s];
  }
  *rs_ = rs;
  *rd_ = rd;
}

TH_CPU_CLONES static void TH_R(bn_plane_grad_input)(const real *x, const real *dy, real *dx,
                                                    int64_t S, real gm, real m, real k, real c) {
  int64_t s;
  for (s = 0; s < S; s++) dx[s] = (dy[s] - gm - (x[s] - m) * k) * c;
}

static int TH_R(batchnorm_forward)(const th_tensor *input, th_tensor *output, const vec *w,
                                   const vec *b, const vec *rm, const vec *rv, const vec *sm,
                                   const vec *ss, const geom *g, int train, double momentum,
                                   double eps) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  const int64_t FS = g->F * g->S, n = g->N * g->S;
  int64_t f;
#pragma omp parallel for if (g->N * FS > TH_NN_PAR_MIN_BN)
  for (f = 0; f < g->F; f++) {
    accreal mean, invstd;
    real wf = w->p ? V(w, f) : 1, bf = b->p ? V(b, f) : 0, m, k;
    int64_t i;
    if (train) {
      /* one pass over the data: sums of x - shift and of its square, with
         shift a sample of the feature so that the difference of the two
         sums does not cancel catastrophically when |mean| >> std */
      const real shift = in[f * g->S];
      accreal sum = 0, sq = 0, var;
      for (i = 0; i < g->N; i++) {
        real rs, rq;
        TH_R(bn_plane_sums)(in + i * FS + f * g->S, g->S, shift, &rs, &rq);
        sum += rs;
        sq += rq;
      }
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
    for (i = 0; i < g->N; i++)
      TH_R(bn_plane_affine)(in + i * FS + f * g->S, out + i * FS + f * g->S, g->S, k, m);
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
      for (i = 0; i < g->N; i++) {
        real rs, rd;
        TH_R(bn_plane_grad_sums)(in + i * FS + f * g->S, go + i * FS + f * g->S, g->S,
                                 (real)mean, &rs, &rd);
        sum += rs;
        dotp += rd;
      }
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
        for (i = 0; i < g->N; i++)
          TH_R(bn_plane_grad_input)(in + i * FS + f * g->S, go + i * FS + f * g->S,
                                    gi + i * FS + f * g->S, g->S, gm, m, k, c);
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
