/*
** th_random.h: Torch7's random generator (MT19937) and the tensor fills
** built on it.
** The generator reproduces Torch7's TH stream bit for bit: the same seed
** initialisation, 32-bit draws, uniform = draw / 2^32, Box-Muller normals
** that cache the second value of each pair, bernoulli = (uniform <= p).
** 'th_generator' has the memory layout of Torch7's THGenerator on LP64
** (5048 bytes), so an RNG state saved by Torch7's torch.getRNGState() is
** accepted by torch.setRNGState() here, and the other way round.
*/
#ifndef TH_RANDOM_H
#define TH_RANDOM_H

#include <stdint.h>
#include "th_tensor.h"

#define TH_MT_N 624

typedef struct th_generator {
  uint64_t initial_seed;
  int32_t left;           /* draws left before the next twist, 1..TH_MT_N */
  int32_t seeded;
  uint64_t next;          /* index of the next state word, 0..TH_MT_N */
  uint64_t state[TH_MT_N];  /* 32-bit words kept in 64-bit slots, as TH does */
  double normal_x, normal_y, normal_rho;  /* Box-Muller pair in progress */
  int32_t normal_is_valid;
} th_generator;

#define TH_GENERATOR_BYTES 5048

/* the process-wide generator behind torch.uniform() etc.; seeded from
   /dev/urandom (or the clock) the first time it is returned */
th_generator *th_random_default(void);

void th_random_manual_seed(th_generator *g, uint64_t seed);
/* seeds from /dev/urandom (the clock if unavailable); returns the seed,
   kept below 2^53 so that it survives a round trip through a double */
uint64_t th_random_seed(th_generator *g);
uint64_t th_random_initial_seed(const th_generator *g);

/* the raw stream: one tempered 32-bit word */
uint32_t th_random_random(th_generator *g);
/* [a, b) from one 32-bit draw */
double th_random_uniform(th_generator *g, double a, double b);
double th_random_normal(th_generator *g, double mean, double stdv);
double th_random_exponential(th_generator *g, double lambda);
double th_random_cauchy(th_generator *g, double median, double sigma);
double th_random_lognormal(th_generator *g, double mean, double stdv);
int64_t th_random_geometric(th_generator *g, double p);
int th_random_bernoulli(th_generator *g, double p);
/* a + (draw mod (b - a + 1)), Torch7's torch.random(a, b); needs b >= a */
int64_t th_random_range(th_generator *g, int64_t a, int64_t b);

/* check the parameters the distributions need (the draw functions above
   do not); TH_ERR with a message such as "standard deviation must be
   strictly positive, got -1" otherwise */
int th_random_check_normal(double stdv);
int th_random_check_prob(double p);         /* 0 <= p <= 1 */
int th_random_check_geometric(double p);    /* 0 < p < 1 */
int th_random_check_range(int64_t a, int64_t b);

/* validates a state (bytes of a th_generator) before copying it in */
int th_random_set_state(th_generator *g, const void *bytes, size_t len);

/* tensor fills, element by element in row-major order, as Torch7's
   TH_TENSOR_APPLY walks. uniform/normal/exponential/cauchy/logNormal
   need a Float or Double tensor; the others take any type. */
int th_tensor_uniform(th_tensor *t, th_generator *g, double a, double b);
int th_tensor_normal(th_tensor *t, th_generator *g, double mean, double stdv);
int th_tensor_exponential(th_tensor *t, th_generator *g, double lambda);
int th_tensor_cauchy(th_tensor *t, th_generator *g, double median, double sigma);
int th_tensor_lognormal(th_tensor *t, th_generator *g, double mean, double stdv);
int th_tensor_geometric(th_tensor *t, th_generator *g, double p);
int th_tensor_bernoulli(th_tensor *t, th_generator *g, double p);
/* per-element probabilities from a Float or Double tensor of equal numel */
int th_tensor_bernoulli_tensor(th_tensor *t, th_generator *g, const th_tensor *p);
/* t:random(): the raw 32-bit draw, reduced to the type as Torch7 does */
int th_tensor_random(th_tensor *t, th_generator *g);
/* t:random(a, b): integers in [a, b] */
int th_tensor_random_range(th_tensor *t, th_generator *g, int64_t a, int64_t b);
/* resizes t to n and fills it with a random permutation of 0..n-1 */
int th_tensor_randperm(th_tensor *t, th_generator *g, int64_t n);

#endif
