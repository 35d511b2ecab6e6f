/*
** th_cpu.h: runtime CPU dispatch for our own vectorized loops. The default
** build targets baseline x86-64 (SSE2), so that one binary runs on any
** x86-64; a function marked TH_CPU_CLONES is compiled three times (AVX-512
** as in x86-64-v4, AVX2 + FMA as in x86-64-v3, baseline) and the loader
** picks the one this CPU runs (GCC's target_clones, an ifunc resolved once
** through __builtin_cpu_supports). Only leaf loops are marked (a th_pool
** chunk function calls its marked range function, which carries the
** clones). Built with -march=native (or any -m flags giving AVX2), or
** by another compiler, the mark is empty. OpenBLAS dispatches its own
** kernels (OPENBLAS_CORETYPE, tools/coretype.sh).
*/
#ifndef TH_CPU_H
#define TH_CPU_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__AVX2__) && \
    !defined(TH_NO_CPU_CLONES)
#define TH_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TH_CPU_CLONES
#endif

#endif
