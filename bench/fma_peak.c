/* bench/fma_peak.c: the FP32 FMA peak of one core, the ceiling bench/gemm.lua
   measures sgemm against. 12 independent chains of 512-bit FMAs (more than
   latency x pipes on any AVX-512 core), so only the FMA units limit.
   Times 400 short bursts and prints the fastest one's GFLOP/s: a burst
   (about 0.3 ms) mostly runs unpreempted, so on a shared machine this is
   still the core's own rate, as the medians of short sgemm calls are. Built by `make bench-gemm` with -mavx512f -mfma; run one
   pinned copy per core (taskset) for the machine's peak. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
  const long iters = 100000L;
  const __m512 mul = _mm512_set1_ps(0.9999999f), add = _mm512_set1_ps(1e-8f);
  __m512 x[12];
  float sum = 0, out[16];
  double t0, dt, best = 1e30;
  long i;
  int j, burst;
  for (j = 0; j < 12; j++) x[j] = _mm512_set1_ps(1.0f + 0.01f * (float)j);
  for (burst = 0; burst < 400; burst++) {
    t0 = seconds();
    for (i = 0; i < iters; i++) {
#pragma GCC unroll 12
      for (j = 0; j < 12; j++) x[j] = _mm512_fmadd_ps(x[j], mul, add);
    }
    dt = seconds() - t0;
    if (dt < best) best = dt;
  }
  for (j = 1; j < 12; j++) x[0] = _mm512_add_ps(x[0], x[j]);
  _mm512_storeu_ps(out, x[0]);
  for (j = 0; j < 16; j++) sum += out[j];
  /* 12 FMAs of 16 lanes, 2 flops each, per iteration; sum keeps the loop live */
  printf("%.1f %g\n", (double)iters * 12 * 32 / best / 1e9, (double)sum);
  return 0;
}
