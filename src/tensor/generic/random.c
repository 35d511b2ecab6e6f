/* generic/random.c: random fills of a 'real' tensor (included by th_random.c).
   Each element takes its draws in row-major order, one after the other, so a
   tensor fill consumes the stream exactly as Torch7's TH_TENSOR_APPLY did. */

#if defined(TH_REAL_IS_FLOAT) || defined(TH_REAL_IS_DOUBLE)

static int TH_R(uniform)(th_tensor *t, th_generator *g, double a, double b) {
  TH_APPLY1(real, p, t, *p = (real)th_random_uniform(g, a, b););
  return TH_OK;
}

static int TH_R(normal)(th_tensor *t, th_generator *g, double mean, double stdv) {
  TH_APPLY1(real, p, t, *p = (real)th_random_normal(g, mean, stdv););
  return TH_OK;
}

static int TH_R(exponential)(th_tensor *t, th_generator *g, double lambda) {
  TH_APPLY1(real, p, t, *p = (real)th_random_exponential(g, lambda););
  return TH_OK;
}

static int TH_R(cauchy)(th_tensor *t, th_generator *g, double median, double sigma) {
  TH_APPLY1(real, p, t, *p = (real)th_random_cauchy(g, median, sigma););
  return TH_OK;
}

static int TH_R(lognormal)(th_tensor *t, th_generator *g, double mean, double stdv) {
  TH_APPLY1(real, p, t, *p = (real)th_random_lognormal(g, mean, stdv););
  return TH_OK;
}

#endif

static int TH_R(geometric)(th_tensor *t, th_generator *g, double p) {
  TH_APPLY1(real, x, t, *x = (real)th_random_geometric(g, p););
  return TH_OK;
}

static int TH_R(bernoulli)(th_tensor *t, th_generator *g, double p) {
  TH_APPLY1(real, x, t, *x = (real)th_random_bernoulli(g, p););
  return TH_OK;
}

static int TH_R(bernoulli_tensor)(th_tensor *t, th_generator *g, const th_tensor *p) {
  if (p->dtype == TH_FLOAT)
    TH_APPLY2(real, x, t, const float, q, p, *x = (real)th_random_bernoulli(g, (double)*q););
  else
    TH_APPLY2(real, x, t, const double, q, p, *x = (real)th_random_bernoulli(g, *q););
  return TH_OK;
}

/* the raw draw reduced as Torch7 reduces it per type: modulo hi + 1 for
   integers (256 for bytes, 2^31 for ints), 2^24 + 1 for floats, none for
   doubles (the draw is below 2^53) */
static int TH_R(random)(th_tensor *t, th_generator *g) {
#if defined(TH_REAL_IS_FLOAT)
  TH_APPLY1(real, x, t, *x = (real)(th_random_random(g) % ((1u << 24) + 1u)););
#elif TH_REAL_FLOATING
  TH_APPLY1(real, x, t, *x = (real)th_random_random(g););
#else
  TH_APPLY1(real, x, t, *x = (real)(th_random_random(g) % ((uint64_t)TH_REAL_HI + 1u)););
#endif
  return TH_OK;
}

static int TH_R(random_range)(th_tensor *t, th_generator *g, int64_t a, int64_t b) {
  TH_APPLY1(real, x, t, *x = (real)th_random_range(g, a, b););
  return TH_OK;
}

/* Torch7's shuffle: position i swaps with i + (draw mod (n - i)) */
static int TH_R(randperm)(th_tensor *t, th_generator *g, int64_t n) {
  real *d = (real *)th_tensor_data(t);
  int64_t s = t->stride[0], i;
  for (i = 0; i < n; i++) d[i * s] = (real)(i + 1);
  for (i = 0; i < n - 1; i++) {
    int64_t z = (int64_t)(th_random_random(g) % (uint64_t)(n - i));
    real sav = d[i * s];
    d[i * s] = d[(z + i) * s];
    d[(z + i) * s] = sav;
  }
  return TH_OK;
}
