/*
** th_cpuinfo.h: a description of the CPU the process runs on, for the
** kernels that choose cache blocking and variants from it (th_gemm.c, the
** convolutions) and for the benchmarks that record the machine.
** Read once per process (th_cpuinfo_get), then constant: vendor, brand
** string, family/model/stepping, the data caches a core sees (L1d, L2, L3:
** bytes of one instance and how many logical CPUs share it), the ISA our
** kernels dispatch on and the FMA units per core.
** Caches come from CPUID (leaf 4 on Intel, 0x8000001D on AMD, 0x80000005/6
** for older AMD), then sysfs (/sys/devices/system/cpu/cpu0/cache) where
** CPUID gives nothing, then fixed defaults; the sharing counts prefer
** sysfs (the CPUs the OS actually shows, where CPUID gives the number of
** addressable IDs). TH_CPU_CACHES overrides any of them, e.g.
** "l1d=32K,l2=1M,l3=32M,l3shared=16" (sizes in bytes with K or M
** suffixes; l1dshared, l2shared, l3shared are counts), to emulate another
** machine or pin a test. TH_CPU_FMA_UNITS overrides the FMA units.
** Never fails: a field it cannot read keeps its default and 'source' says
** where the caches came from.
*/
#ifndef TH_CPUINFO_H
#define TH_CPUINFO_H

#include <stdint.h>

typedef struct th_cpuinfo {
  char vendor[13];          /* "GenuineIntel", "AuthenticAMD", ... ("" off x86) */
  char brand[49];           /* CPUID's brand string, trimmed */
  int family, model, stepping; /* display family and model (extended fields added) */
  int64_t l1d, l2, l3;      /* bytes of one cache instance (0: none) */
  int l1d_shared, l2_shared, l3_shared; /* logical CPUs sharing one instance (>= 1) */
  const char *source;       /* where the caches came from: "cpuid", "sysfs", "default",
                               or "TH_CPU_CACHES" when the override changed any */
  int avx512f, avx512bw, avx512vl, avx2, fma, amx_tile, amx_bf16;
  int vector_bits;          /* the widest vectors our kernels use here: 512, 256, 128 */
  int fma_units;            /* vector_bits-wide FMAs a core starts per cycle (table) */
  int logical;              /* online logical CPUs */
} th_cpuinfo;

/* the process's description (read on the first call, thread-safe) */
const th_cpuinfo *th_cpuinfo_get(void);

/* applies a TH_CPU_CACHES-style list to 'ci' (whose fields it changes);
   0, or TH_ERR with th_error set naming the bad item and 'ci' unchanged */
int th_cpuinfo_parse_caches(th_cpuinfo *ci, const char *spec);

/* the L3 one logical CPU can count on: l3 / l3_shared (0 without an L3) */
int64_t th_cpuinfo_l3_share(const th_cpuinfo *ci);

/* FMA units per core by vendor, family, model and brand (the table in
   th_cpuinfo.c); 0 when the model is not in the table */
int th_cpuinfo_fma_units(const th_cpuinfo *ci);

#endif
