/*
** th_random.c: the MT19937 generator as Torch7's TH runs it, the scalar
** distributions derived from it, and the tensor fills.
** Invariants of a th_generator in use: 1 <= left <= TH_MT_N and
** next + left == TH_MT_N + 1 after the first twist (left == 1, next == 0
** right after seeding, so the first draw twists). Every state word holds
** a 32-bit value. Numbers must match Torch7 bit for bit, so the formulas
** (including their quirks: uniform has 32 bits of resolution, the
** Box-Muller pair is cached, reseeding drops the cached normal) are kept.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "th_cpu.h"
#include "th_error.h"
#include "th_iter.h"
#include "th_random.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define MT_M 397
#define MATRIX_A 0x9908b0dfUL
#define UMASK 0x80000000UL
#define LMASK 0x7fffffffUL
#define MIXBITS(u, v) (((u) & UMASK) | ((v) & LMASK))
#define TWIST(u, v) ((MIXBITS(u, v) >> 1) ^ ((v) & 1UL ? MATRIX_A : 0UL))

_Static_assert(sizeof(th_generator) == TH_GENERATOR_BYTES,
               "th_generator must keep Torch7's THGenerator layout");

/* one per OS thread: the Lua state of each threads.Threads worker draws
   from its own generator, as each Lua state of Torch7 had its own; one
   shared MT state would be torn by concurrent draws */
static _Thread_local th_generator default_gen;

th_generator *th_random_default(void) {
  if (!default_gen.seeded) th_random_seed(&default_gen);
  return &default_gen;
}

void th_random_manual_seed(th_generator *g, uint64_t seed) {
  int j;
  memset(g, 0, sizeof *g);  /* also drops a cached normal, as Torch7 does */
  g->initial_seed = seed;
  g->state[0] = seed & 0xffffffffUL;
  for (j = 1; j < TH_MT_N; j++) {
    g->state[j] = 1812433253UL * (g->state[j - 1] ^ (g->state[j - 1] >> 30)) + (uint64_t)j;
    g->state[j] &= 0xffffffffUL;
  }
  g->left = 1;
  g->next = 0;
  g->seeded = 1;
}

uint64_t th_random_seed(th_generator *g) {
  uint64_t s = 0;
  FILE *f = fopen("/dev/urandom", "rb");
  if (f == NULL || fread(&s, sizeof s, 1, f) != 1) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    s = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
  }
  if (f != NULL) fclose(f);
  s &= (1ULL << 53) - 1;
  th_random_manual_seed(g, s);
  return s;
}

uint64_t th_random_initial_seed(const th_generator *g) { return g->initial_seed; }

/* cloned (th_cpu.h): the twist vectorizes, and filling a net's weights runs it a lot */
TH_CPU_CLONES static void next_state(th_generator *g) {
  uint64_t *p = g->state;
  int j;
  g->left = TH_MT_N;
  g->next = 0;
  for (j = TH_MT_N - MT_M + 1; --j; p++) *p = p[MT_M] ^ TWIST(p[0], p[1]);
  for (j = MT_M; --j; p++) *p = p[MT_M - TH_MT_N] ^ TWIST(p[0], p[1]);
  *p = p[MT_M - TH_MT_N] ^ TWIST(p[0], g->state[0]);
}

uint32_t th_random_random(th_generator *g) {
  uint64_t y;
  /* 'next' is checked too, so that no state can read past the array */
  if (--g->left <= 0 || g->next >= TH_MT_N) next_state(g);
  y = g->state[g->next++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680UL;
  y ^= (y << 15) & 0xefc60000UL;
  y ^= (y >> 18);
  return (uint32_t)y;
}

static double uniform01(th_generator *g) {
  return (double)th_random_random(g) * (1.0 / 4294967296.0);
}

double th_random_uniform(th_generator *g, double a, double b) {
  return uniform01(g) * (b - a) + a;
}

double th_random_normal(th_generator *g, double mean, double stdv) {
  /* Box-Muller: one pair of uniforms gives a cosine and a sine value */
  if (!g->normal_is_valid) {
    g->normal_x = uniform01(g);
    g->normal_y = uniform01(g);
    g->normal_rho = sqrt(-2. * log(1.0 - g->normal_y));
    g->normal_is_valid = 1;
    return g->normal_rho * cos(2. * M_PI * g->normal_x) * stdv + mean;
  }
  g->normal_is_valid = 0;
  return g->normal_rho * sin(2. * M_PI * g->normal_x) * stdv + mean;
}

double th_random_exponential(th_generator *g, double lambda) {
  return -1. / lambda * log(1 - uniform01(g));
}

double th_random_cauchy(th_generator *g, double median, double sigma) {
  return median + sigma * tan(M_PI * (uniform01(g) - 0.5));
}

/* exp(N(mean, stdv)): mean and stdv are those of the logarithm (current
   Torch7; its first releases took the log-normal's own moments) */
double th_random_lognormal(th_generator *g, double mean, double stdv) {
  return exp(th_random_normal(g, mean, stdv));
}

int64_t th_random_geometric(th_generator *g, double p) {
  return (int64_t)(int)(log(1 - uniform01(g)) / log(p)) + 1;
}

int th_random_bernoulli(th_generator *g, double p) { return uniform01(g) <= p; }

int64_t th_random_range(th_generator *g, int64_t a, int64_t b) {
  uint64_t range = (uint64_t)b - (uint64_t)a + 1;  /* 0 means all 2^64 values */
  uint64_t r = th_random_random(g);
  return (int64_t)((range ? r % range : r) + (uint64_t)a);
}

int th_random_check_normal(double stdv) {
  if (!(stdv > 0)) return th_error_set("standard deviation must be strictly positive, got %g", stdv);
  return TH_OK;
}

int th_random_check_prob(double p) {
  if (!(p >= 0 && p <= 1)) return th_error_set("probability must be in [0, 1], got %g", p);
  return TH_OK;
}

int th_random_check_geometric(double p) {
  if (!(p > 0 && p < 1)) return th_error_set("probability must be in (0, 1), got %g", p);
  return TH_OK;
}

int th_random_check_range(int64_t a, int64_t b) {
  if (b < a)
    return th_error_set("upper bound %lld must be at least the lower bound %lld", (long long)b,
                        (long long)a);
  return TH_OK;
}

int th_random_set_state(th_generator *g, const void *bytes, size_t len) {
  th_generator s;
  int j;
  if (len != sizeof s)
    return th_error_set("RNG state must be %d bytes, got %zu", TH_GENERATOR_BYTES, len);
  memcpy(&s, bytes, sizeof s);
  if (s.seeded != 1 || s.left < 1 || s.left > TH_MT_N || s.next > TH_MT_N ||
      (s.left != 1 && s.next + (uint64_t)s.left != TH_MT_N + 1))
    return th_error_set("invalid RNG state (not one saved by getRNGState)");
  for (j = 0; j < TH_MT_N; j++)
    if (s.state[j] > 0xffffffffUL) return th_error_set("invalid RNG state (state word %d out of range)", j);
  *g = s;
  return TH_OK;
}

/* --- tensor fills ------------------------------------------------------- */

#define TH_GENERIC_FILE "generic/random.c"
#include "th_generic_all.h"

int th_tensor_uniform(th_tensor *t, th_generator *g, double a, double b) {
  return TH_DISPATCH_FLOATING(t->dtype, uniform, (t, g, a, b), "uniform");
}

int th_tensor_normal(th_tensor *t, th_generator *g, double mean, double stdv) {
  if (th_random_check_normal(stdv) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(t->dtype, normal, (t, g, mean, stdv), "normal");
}

int th_tensor_exponential(th_tensor *t, th_generator *g, double lambda) {
  return TH_DISPATCH_FLOATING(t->dtype, exponential, (t, g, lambda), "exponential");
}

int th_tensor_cauchy(th_tensor *t, th_generator *g, double median, double sigma) {
  return TH_DISPATCH_FLOATING(t->dtype, cauchy, (t, g, median, sigma), "cauchy");
}

int th_tensor_lognormal(th_tensor *t, th_generator *g, double mean, double stdv) {
  if (th_random_check_normal(stdv) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(t->dtype, lognormal, (t, g, mean, stdv), "logNormal");
}

int th_tensor_geometric(th_tensor *t, th_generator *g, double p) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  if (th_random_check_geometric(p) != TH_OK) return TH_ERR;
  return TH_DISPATCH_ALL(t->dtype, geometric, (t, g, p));
}

int th_tensor_bernoulli(th_tensor *t, th_generator *g, double p) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  if (th_random_check_prob(p) != TH_OK) return TH_ERR;
  return TH_DISPATCH_ALL(t->dtype, bernoulli, (t, g, p));
}

int th_tensor_bernoulli_tensor(th_tensor *t, th_generator *g, const th_tensor *p) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  char a[128], b[128];
  if (!TH_IS_FLOATING(p->dtype))
    return th_error_set("probabilities must be a Float or Double tensor, got a %sTensor",
                        th_dtype_name[p->dtype]);
  if (th_tensor_numel(t) != th_tensor_numel(p))
    return th_error_set("%s probabilities for a %s tensor",
                        th_tensor_sizestr(p, b, sizeof b), th_tensor_sizestr(t, a, sizeof a));
  return TH_DISPATCH_ALL(t->dtype, bernoulli_tensor, (t, g, p));
}

int th_tensor_random(th_tensor *t, th_generator *g) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  return TH_DISPATCH_ALL(t->dtype, random, (t, g));
}

int th_tensor_random_range(th_tensor *t, th_generator *g, int64_t a, int64_t b) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  if (th_random_check_range(a, b) != TH_OK) return TH_ERR;
  return TH_DISPATCH_ALL(t->dtype, random_range, (t, g, a, b));
}

int th_tensor_randperm(th_tensor *t, th_generator *g, int64_t n) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  if (n <= 0) return th_error_set("n must be strictly positive, got %lld", (long long)n);
  if (n > th_dtype_hi[t->dtype])  /* values 1..n held exactly */
    return th_error_set("n = %lld does not fit in a %sTensor", (long long)n, th_dtype_name[t->dtype]);
  if (th_tensor_resize1d(t, n) != TH_OK) return TH_ERR;
  return TH_DISPATCH_ALL(t->dtype, randperm, (t, g, n));
}
