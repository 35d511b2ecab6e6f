/* generic/batchnorm.c: batch normalization for 'real' (included by th_nn_batchnorm.c) */

#define V(v, f) (((real *)(v)->p)[(f) * (v)->st])

/* The loops run over the planes of a block of features (th_nn_batchnorm.c's
   bn_block) in memory order: sample i's planes of the block, then sample
   i + 1's. A feature's own planes are F * S apart (16 KiB for 64 features
   of 8x8), which in a loop over one feature at a time fell on the same L1
   sets and missed the prefetcher: small planes ran at a quarter of a copy's
   bandwidth. The block is sized so that its data stays in L2 between the
   sums and the pass that writes. Each plane is summed in 'real' lanes and
   added to its feature's 'accreal' total in plane order, as one feature at
   a time did: the same numbers, whatever the block and the thread count.
   Leaf functions, so that they run with the CPU's widest vectors
   (th_cpu.h: a loop inside a parallel region would not). */

/* sums of x - shift and of its square, added to sum[f] and sq[f] for the
   nf planes of one sample, S elements each, starting at x */
TH_CPU_CLONES static void TH_R(bn_row_sums)(const real *x, int64_t nf, int64_t S,
                                            const real *shift, accreal *sum, accreal *sq) {
  int64_t f, s;
  for (f = 0; f < nf; f++) {
    const real *p = x + f * S, sh = shift[f];
    real rs = 0, rq = 0;
    /* simd: lets the compiler split the sums into vector lanes */
#pragma omp simd reduction(+ : rs, rq)
    for (s = 0; s < S; s++) {
      real d = p[s] - sh;
      rs += d;
      rq += d * d;
    }
    sum[f] += rs;
    sq[f] += rq;
  }
}

/* y = x * k[f] + m[f], then ReLU's threshold as nn.ReLU computes it if relu */
TH_CPU_CLONES static void TH_R(bn_row_affine)(const real *x, real *y, int64_t nf, int64_t S,
                                              const real *k, const real *m, int relu) {
  int64_t f, s;
  for (f = 0; f < nf; f++) {
    const real *p = x + f * S, kf = k[f], mf = m[f];
    real *q = y + f * S;
    if (relu) {
      for (s = 0; s < S; s++) {
        real v = p[s] * kf + mf;
        q[s] = v > 0 ? v : 0;
      }
    } else {
      for (s = 0; s < S; s++) q[s] = p[s] * kf + mf;
    }
  }
}

/* sums of dy and of (x - m[f]) * dy */
TH_CPU_CLONES static void TH_R(bn_row_grad_sums)(const real *x, const real *dy, int64_t nf,
                                                 int64_t S, const real *m, accreal *sum,
                                                 accreal *dotp) {
  int64_t f, s;
  for (f = 0; f < nf; f++) {
    const real *p = x + f * S, *d = dy + f * S, mf = m[f];
    real rs = 0, rd = 0;
#pragma omp simd reduction(+ : rs, rd)
    for (s = 0; s < S; s++) {
      rs += d[s];
      rd += (p[s] - mf) * d[s];
    }
    sum[f] += rs;
    dotp[f] += rd;
  }
}

/* dx = (dy - gm - (x - m) * k) * c per feature (training), or dy * c
   (evaluation: x is NULL) */
TH_CPU_CLONES static void TH_R(bn_row_grad_input)(const real *x, const real *dy, real *dx,
                                                  int64_t nf, int64_t S, const real *gm,
                                                  const real *m, const real *k, const real *c) {
  int64_t f, s;
  for (f = 0; f < nf; f++) {
    const real *d = dy + f * S, cf = c[f];
    real *q = dx + f * S;
    if (x) {
      const real *p = x + f * S, gmf = gm[f], mf = m[f], kf = k[f];
      for (s = 0; s < S; s++) q[s] = (d[s] - gmf - (p[s] - mf) * kf) * cf;
    } else {
      for (s = 0; s < S; s++) q[s] = d[s] * cf;
    }
  }
}

typedef struct TH_R(bn_fwd_job) {
  const real *in;
  real *out;
  const vec *w, *b, *rm, *rv, *sm, *ss, *cf;
  const geom *g;
  int64_t fb;
  int train, relu;
  double momentum, eps;
} TH_R(bn_fwd_job);

static void TH_R(bn_fwd_block)(void *arg, int64_t blk) {
  const TH_R(bn_fwd_job) *j = arg;
  const geom *g = j->g;
  const real *in = j->in;
  const int64_t FS = g->F * g->S, n = g->N * g->S, f0 = blk * j->fb;
  const int64_t nf = g->F - f0 < j->fb ? g->F - f0 : j->fb;
  const vec *w = j->w, *b = j->b, *rm = j->rm, *rv = j->rv, *sm = j->sm, *ss = j->ss, *cf = j->cf;
  const double momentum = j->momentum;
  accreal sums[BN_BLOCK_MAX], sqs[BN_BLOCK_MAX];
  real shift[BN_BLOCK_MAX], k[BN_BLOCK_MAX], m[BN_BLOCK_MAX];
  int64_t f, i;
  if (j->train) {
    /* one pass over the data: sums of x - shift and of its square, with
       shift a sample of the feature so that the difference of the two
       sums does not cancel catastrophically when |mean| >> std */
    for (f = 0; f < nf; f++) {
      shift[f] = in[(f0 + f) * g->S];
      sums[f] = sqs[f] = 0;
    }
    for (i = 0; i < g->N; i++)
      TH_R(bn_row_sums)(in + i * FS + f0 * g->S, nf, g->S, shift, sums, sqs);
  }
  for (f = 0; f < nf; f++) {
    const int64_t F = f0 + f;
    real wf = w->p ? V(w, F) : 1, bf = b->p ? V(b, F) : 0;
    accreal mean, invstd;
    if (j->train) {
      accreal sum = sums[f], var = sqs[f] - sum * (sum / n);
      mean = shift[f] + sum / n;
      if (var < 0) var = 0;
      invstd = (var == 0 && j->eps == 0) ? 0 : 1 / sqrt(var / n + j->eps);
      V(sm, F) = (real)mean;
      V(ss, F) = (real)invstd;
      V(rm, F) = (real)(momentum * mean + (1 - momentum) * V(rm, F));
      V(rv, F) = (real)(momentum * var / (n - 1) + (1 - momentum) * V(rv, F));
    } else {
      mean = V(rm, F);
      invstd = 1 / sqrt((accreal)V(rv, F) + j->eps);
    }
    /* y = x * k + (b - mean * k) with k = invstd * w */
    k[f] = (real)(invstd * wf);
    m[f] = (real)(bf - mean * invstd * wf);
    if (cf->p) {
      V(cf, 2 * F) = k[f];
      V(cf, 2 * F + 1) = m[f];
    }
  }
  for (i = 0; i < g->N; i++)
    TH_R(bn_row_affine)(in + i * FS + f0 * g->S, j->out + i * FS + f0 * g->S, nf, g->S, k, m,
                        j->relu);
}

/* features run as th_pool chunks of blocks, whose helpers stay awake
   between the layers of a step (th_pool.h) */
static int TH_R(batchnorm_forward)(const th_tensor *input, th_tensor *output, const vec *w,
                                   const vec *b, const vec *rm, const vec *rv, const vec *sm,
                                   const vec *ss, const vec *cf, const geom *g, int train,
                                   double momentum, double eps, int relu) {
  TH_R(bn_fwd_job) j;
  const int nt = th_nn_threads_over(g->N * g->F * g->S, TH_NN_PAR_MIN_BN);
  int64_t nb;
  j.in = th_tensor_data(input), j.out = th_tensor_data(output);
  j.w = w, j.b = b, j.rm = rm, j.rv = rv, j.sm = sm, j.ss = ss, j.cf = cf, j.g = g;
  j.train = train, j.relu = relu, j.momentum = momentum, j.eps = eps;
  j.fb = bn_block(g, sizeof(real), nt, &nb);
  th_pool_for(nt, nb, TH_R(bn_fwd_block), &j);
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
  int64_t fb;
  int relu;
} TH_R(bn_apply_job);

static void TH_R(bn_apply_block)(void *arg, int64_t blk) {
  const TH_R(bn_apply_job) *j = arg;
  const geom *g = j->g;
  const vec *cf = j->cf;
  const int64_t FS = g->F * g->S, f0 = blk * j->fb;
  const int64_t nf = g->F - f0 < j->fb ? g->F - f0 : j->fb;
  real k[BN_BLOCK_MAX], m[BN_BLOCK_MAX];
  int64_t f, i;
  for (f = 0; f < nf; f++) {
    k[f] = V(cf, 2 * (f0 + f));
    m[f] = V(cf, 2 * (f0 + f) + 1);
  }
  for (i = 0; i < g->N; i++)
    TH_R(bn_row_affine)(j->in + i * FS + f0 * g->S, j->out + i * FS + f0 * g->S, nf, g->S, k, m,
                        j->relu);
}

static int TH_R(batchnorm_apply)(const th_tensor *input, th_tensor *output, const vec *cf,
                                 const geom *g, int relu) {
  TH_R(bn_apply_job) j;
  const int nt = th_nn_threads_over(g->N * g->F * g->S, TH_NN_PAR_MIN_BN);
  int64_t nb;
  j.in = th_tensor_data(input), j.out = th_tensor_data(output), j.cf = cf, j.g = g, j.relu = relu;
  j.fb = bn_block(g, sizeof(real), nt, &nb);
  th_pool_for(nt, nb, TH_R(bn_apply_block), &j);
  return TH_OK;
}

typedef struct TH_R(bn_bwd_job) {
  const real *in, *go;
  real *gi;
  const vec *gw, *gb, *w, *rm, *rv, *sm, *ss, *st;
  const geom *g;
  int64_t fb;
  int stats_mode, train;
  double scale, eps;
} TH_R(bn_bwd_job);

static void TH_R(bn_bwd_block)(void *arg, int64_t blk) {
  const TH_R(bn_bwd_job) *j = arg;
  const geom *g = j->g;
  const real *in = j->in, *go = j->go;
  real *gi = j->gi;
  const vec *gw = j->gw, *gb = j->gb, *w = j->w, *rm = j->rm, *rv = j->rv, *sm = j->sm;
  const vec *ss = j->ss, *st = j->st;
  const int64_t FS = g->F * g->S, n = g->N * g->S, f0 = blk * j->fb;
  const int64_t nf = g->F - f0 < j->fb ? g->F - f0 : j->fb;
  accreal sum[BN_BLOCK_MAX], dotp[BN_BLOCK_MAX], mean[BN_BLOCK_MAX], invstd[BN_BLOCK_MAX];
  real mr[BN_BLOCK_MAX], gm[BN_BLOCK_MAX], k[BN_BLOCK_MAX], c[BN_BLOCK_MAX];
  int64_t f, i;
  for (f = 0; f < nf; f++) {
    const int64_t F = f0 + f;
    if (j->train) {
      mean[f] = V(sm, F);
      invstd[f] = V(ss, F);
    } else {
      mean[f] = V(rm, F);
      invstd[f] = 1 / sqrt((accreal)V(rv, F) + j->eps);
    }
    mr[f] = (real)mean[f];
    if (j->stats_mode == TH_NN_STATS_REUSE) {
      sum[f] = V(st, 2 * F);
      dotp[f] = V(st, 2 * F + 1);
    } else {
      sum[f] = dotp[f] = 0;
    }
  }
  if (j->stats_mode != TH_NN_STATS_REUSE) {
    for (i = 0; i < g->N; i++)
      TH_R(bn_row_grad_sums)(in + i * FS + f0 * g->S, go + i * FS + f0 * g->S, nf, g->S, mr,
                             sum, dotp);
    if (j->stats_mode == TH_NN_STATS_STORE)
      for (f = 0; f < nf; f++) {
        V(st, 2 * (f0 + f)) = (real)sum[f];
        V(st, 2 * (f0 + f) + 1) = (real)dotp[f];
      }
  }
  for (f = 0; f < nf; f++) {
    const int64_t F = f0 + f;
    real wf = w->p ? V(w, F) : 1;
    /* dx = (dy - mean(dy) - (x - mean) * dotp * invstd^2 / n) * invstd * w */
    k[f] = (real)(dotp[f] * invstd[f] * invstd[f] / n);
    gm[f] = (real)(sum[f] / n);
    c[f] = (real)(invstd[f] * wf);
    if (gw->p) V(gw, F) += (real)(j->scale * dotp[f] * invstd[f]);
    if (gb->p) V(gb, F) += (real)(j->scale * sum[f]);
  }
  if (gi)
    for (i = 0; i < g->N; i++)
      TH_R(bn_row_grad_input)(j->train ? in + i * FS + f0 * g->S : NULL, go + i * FS + f0 * g->S,
                              gi + i * FS + f0 * g->S, nf, g->S, gm, mr, k, c);
}

static int TH_R(batchnorm_backward)(const th_tensor *input, const th_tensor *gradOutput,
                                    th_tensor *gradInput, const vec *gw, const vec *gb,
                                    const vec *w, const vec *rm, const vec *rv, const vec *sm,
                                    const vec *ss, const vec *st, int stats_mode, const geom *g,
                                    int train, double scale, double eps) {
  TH_R(bn_bwd_job) j;
  /* with the sums reused and no gradInput the loop is F steps: no threads */
  const int heavy = gradInput != NULL || stats_mode != TH_NN_STATS_REUSE;
  const int nt = heavy ? th_nn_threads_over(g->N * g->F * g->S, TH_NN_PAR_MIN_BN) : 1;
  int64_t nb;
  j.in = th_tensor_data(input), j.go = th_tensor_data(gradOutput);
  j.gi = gradInput ? th_tensor_data(gradInput) : NULL;
  j.gw = gw, j.gb = gb, j.w = w, j.rm = rm, j.rv = rv, j.sm = sm, j.ss = ss, j.st = st, j.g = g;
  j.stats_mode = stats_mode, j.train = train, j.scale = scale, j.eps = eps;
  j.fb = bn_block(g, 2 * sizeof(real), nt, &nb);
  th_pool_for(nt, nb, TH_R(bn_bwd_block), &j);
  return TH_OK;
}

#undef V
