/* bench/fma_peak.c: the FP32 FMA peak of one core, the ceiling bench/gemm.lua
   and bench/speed.lua measure against. 12 independent chains of FMAs of the
   widest vectors this CPU runs (512-bit with AVX-512F, else 256-bit with
   AVX2 + FMA: chosen at run time, so one binary built with baseline flags
   serves both), more chains than latency x pipes on any such core, so only
   the FMA units limit. Times 400 short bursts and prints the fastest one's
   GFLOP/s: a burst (about 0.3 ms) mostly runs unpreempted, so on a shared
   machine this is still the core's own rate, as the medians of short sgemm
   calls are. Prints "<GFLOP/s> <checksum>" on stdout and the vector width on
   stderr; exits 1 on a CPU with neither. Run one pinned copy per core
   (taskset) for the machine's peak. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define ITERS 100000L
#define BURSTS 400

/* one variant per vector type: VEC, SET1, FMA, ADD, STORE and LANES */
#define PEAK_FN(NAME, TARGET, VEC, SET1, FMA, ADD, STORE, LANES)                   \
  __attribute__((target(TARGET))) static double NAME(float *sum) {                  \
    const VEC mul = SET1(0.9999999f), add = SET1(1e-8f);                            \
    VEC x[12];                                                                      \
    float out[LANES];                                                               \
    double t0, dt, best = 1e30;                                                     \
    long i;                                                                         \
    int j, burst;                                                                   \
    for (j = 0; j < 12; j++) x[j] = SET1(1.0f + 0.01f * (float)j);                  \
    for (burst = 0; burst < BURSTS; burst++) {                                      \
      t0 = seconds();                                                               \
      for (i = 0; i < ITERS; i++) {                                                 \
        _Pragma("GCC unroll 12") for (j = 0; j < 12; j++) x[j] = FMA(x[j], mul, add); \
      }                                                                             \
      dt = seconds() - t0;                                                          \
      if (dt < best) best = dt;                                                     \
    }                                                                               \
    for (j = 1; j < 12; j++) x[0] = ADD(x[0], x[j]);                                \
    STORE(out, x[0]);                                                               \
    for (j = 0; j < LANES; j++) *sum += out[j];                                     \
    /* 12 FMAs of LANES lanes, 2 flops each, per iteration */                       \
    return (double)ITERS * 12 * 2 * LANES / best / 1e9;                             \
  }

PEAK_FN(peak512, "avx512f,fma", __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps,
        _mm512_storeu_ps, 16)
PEAK_FN(peak256, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps,
        _mm256_storeu_ps, 8)

int main(void) {
  float sum = 0;
  double gflops;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    gflops = peak512(&sum);
    fprintf(stderr, "avx512\n");
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    gflops = peak256(&sum);
    fprintf(stderr, "avx2\n");
  } else {
    fprintf(stderr, "fma_peak: this CPU has neither AVX-512F nor AVX2 + FMA\n");
    return 1;
  }
  /* sum keeps the chains live */
  printf("%.1f %g\n", gflops, (double)sum);
  return 0;
}
