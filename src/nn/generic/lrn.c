/* generic/lrn.c: cross-map LRN for 'real' (included by th_nn_lrn.c) */

#ifdef TH_REAL_IS_FLOAT
#define LRN_SQRT sqrtf
#else
#define LRN_SQRT sqrt
#endif

/* EXPR for each of the P pixels of a row, with w = S[p]^-beta: the exponent's common values by square roots: 3/4
   (Torch7's default, GoogLeNet's and AlexNet's) as 1 / (r sqrt(r)) with
   r = sqrt(s), 1/2 and 1 likewise; within a few ulps of pow, which they
   replace because a pow per element was most of the layer's time (and
   keeps the loop from vectorizing); other exponents through pow in double */
#define LRN_ROW(S, EXPR)                                                          \
  do {                                                                         \
    if (beta == 0.75) {                                                        \
      for (p = 0; p < P; p++) {                                                \
        const real r_ = LRN_SQRT((S)[p]), w = (real)1 / (r_ * LRN_SQRT(r_));     \
        EXPR;                                                                  \
      }                                                                        \
    } else if (beta == 0.5) {                                                  \
      for (p = 0; p < P; p++) {                                                \
        const real w = (real)1 / LRN_SQRT((S)[p]);                               \
        EXPR;                                                                  \
      }                                                                        \
    } else if (beta == 1) {                                                    \
      for (p = 0; p < P; p++) {                                                \
        const real w = (real)1 / (S)[p];                                         \
        EXPR;                                                                  \
      }                                                                        \
    } else {                                                                   \
      for (p = 0; p < P; p++) {                                                \
        const real w = (real)pow((double)(S)[p], -beta);                         \
        EXPR;                                                                  \
      }                                                                        \
    }                                                                          \
  } while (0)

/* one image: s = k + coef * (window sum of squares), y = x * s^-beta */
TH_CPU_CLONES static void TH_R(lrn_forward_image)(const real *x, real *y, real *s, const geom *g,
                                                   double coef, double beta, double k) {
  int64_t c, j, p;
  const int64_t P = g->P;
  for (c = 0; c < g->C; c++) {
    const int64_t lo = c - g->pre < 0 ? 0 : c - g->pre;
    const int64_t hi = c + g->post >= g->C ? g->C - 1 : c + g->post;
    real *sr = s + c * P;
    const real *xc = x + c * P;
    real *yc = y + c * P;
    for (p = 0; p < P; p++) sr[p] = 0;
    for (j = lo; j <= hi; j++) {
      const real *xr = x + j * P;
      for (p = 0; p < P; p++) sr[p] += xr[p] * xr[p];
    }
    for (p = 0; p < P; p++) sr[p] = (real)(k + coef * sr[p]);
    LRN_ROW(sr, yc[p] = xc[p] * w);
  }
}

/* one image's gradInput, r (CP + P) its scratch:
   gradInput[c] = gradOutput[c] * scale[c]^-beta
                  - 2 alpha beta / size * input[c] * sum_{j = c-post .. c+pre} ratio[j],
   ratio = gradOutput * output / scale */
TH_CPU_CLONES static void TH_R(lrn_backward_image)(const real *x, const real *dy, const real *s,
                                                    const real *y, real *dx, real *r,
                                                    const geom *g, double coef, double beta) {
  const int64_t P = g->P, CP = g->C * P;
  real *acc = r + CP;
  int64_t c, j, p;
  for (p = 0; p < CP; p++) r[p] = dy[p] * y[p] / s[p];
  for (c = 0; c < g->C; c++) {
    const int64_t lo = c - g->post < 0 ? 0 : c - g->post;
    const int64_t hi = c + g->pre >= g->C ? g->C - 1 : c + g->pre;
    const int64_t o = c * P;
    for (p = 0; p < P; p++) acc[p] = 0;
    for (j = lo; j <= hi; j++) {
      const real *rr = r + j * P;
      for (p = 0; p < P; p++) acc[p] += rr[p];
    }
    LRN_ROW(s + o, dx[o + p] = (real)(dy[o + p] * w - coef * x[o + p] * acc[p]));
  }
}

typedef struct TH_R(lrn_job) {
  const real *in, *go, *sc, *out;
  real *y, *s, *gi, *rb;
  const geom *g;
  double coef, beta, k;
} TH_R(lrn_job);

static void TH_R(lrn_forward_one)(void *arg, int64_t b) {
  const TH_R(lrn_job) *j = arg;
  const int64_t CP = j->g->C * j->g->P;
  TH_R(lrn_forward_image)(j->in + b * CP, j->y + b * CP, j->s + b * CP, j->g, j->coef, j->beta,
                          j->k);
}

/* images in parallel on th_pool */
static int TH_R(lrn_forward)(const th_tensor *input, th_tensor *output, th_tensor *scale,
                             const geom *g, double coef, double beta, double k) {
  TH_R(lrn_job) j;
  j.in = th_tensor_data(input), j.y = th_tensor_data(output), j.s = th_tensor_data(scale);
  j.g = g, j.coef = coef, j.beta = beta, j.k = k;
  th_pool_for(th_nn_threads_over(g->N * g->C * g->P, LRN_PAR_MIN), g->N,
              TH_R(lrn_forward_one), &j);
  return TH_OK;
}

/* image b with its participant's slice of the ratio buffer */
static void TH_R(lrn_backward_one)(void *arg, int b, int slot) {
  const TH_R(lrn_job) *j = arg;
  const int64_t CP = j->g->C * j->g->P;
  TH_R(lrn_backward_image)(j->in + b * CP, j->go + b * CP, j->sc + b * CP, j->out + b * CP,
                           j->gi + b * CP, j->rb + slot * (CP + j->g->P), j->g, j->coef, j->beta);
}

static int TH_R(lrn_backward)(const th_tensor *input, const th_tensor *gradOutput,
                              th_tensor *gradInput, const th_tensor *scale,
                              const th_tensor *output, th_tensor *ratio, const geom *g,
                              double coef, double beta, int nt) {
  TH_R(lrn_job) j;
  int64_t b;
  j.in = th_tensor_data(input), j.go = th_tensor_data(gradOutput);
  j.sc = th_tensor_data(scale), j.out = th_tensor_data(output);
  j.gi = th_tensor_data(gradInput), j.rb = th_tensor_data(ratio);
  j.g = g, j.coef = coef, j.beta = beta;
  if (nt > 1 && g->N <= (1 << 20)) {
    th_pool_run_slot(nt, (int)g->N, TH_R(lrn_backward_one), &j);
  } else {
    for (b = 0; b < g->N; b++) TH_R(lrn_backward_one)(&j, (int)b, 0);
  }
  return TH_OK;
}

#undef LRN_ROW
#undef LRN_SQRT
