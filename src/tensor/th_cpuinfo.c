/*
** th_cpuinfo.c: the CPU description of th_cpuinfo.h: CPUID first, sysfs
** where CPUID says nothing (and for how many CPUs share a cache), then
** TH_CPU_CACHES and TH_CPU_FMA_UNITS.
** FMA units come from a table by vendor, family, model and brand string,
** not from a measurement: CPUID has no field for them, and a timing at
** start-up on a loaded machine (the case the benchmarks must survive)
** reads half the units when another process holds the core; the table is
** exact where a model has one configuration, and bench/fma_peak.c measures
** the rate the benchmarks divide by. The only model whose units differ by
** part is Skylake/Cascade Lake-SP (family 6, model 85): one 512-bit unit
** on Bronze, Silver and Gold 5xxx (but 5122), two elsewhere, told apart by
** the brand string as Intel's ark lists them.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "th_cpuinfo.h"
#include "th_error.h"
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_CPUID 1
#endif

static th_cpuinfo info;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void set_cache(th_cpuinfo *ci, int level, int64_t bytes, int shared) {
  if (level == 1) ci->l1d = bytes, ci->l1d_shared = shared;
  else if (level == 2) ci->l2 = bytes, ci->l2_shared = shared;
  else if (level == 3) ci->l3 = bytes, ci->l3_shared = shared;
}

#ifdef HAVE_CPUID
typedef struct regs { unsigned a, b, c, d; } regs;

static regs cpuid(unsigned leaf, unsigned sub) {
  regs r = {0, 0, 0, 0};
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}

static void read_ids(th_cpuinfo *ci) {
  const regs r0 = cpuid(0, 0), r1 = r0.a >= 1 ? cpuid(1, 0) : (regs){0, 0, 0, 0};
  const unsigned ext = cpuid(0x80000000u, 0).a;
  const int fam = (int)((r1.a >> 8) & 0xf), mod = (int)((r1.a >> 4) & 0xf);
  unsigned i;
  memcpy(ci->vendor, &r0.b, 4), memcpy(ci->vendor + 4, &r0.d, 4), memcpy(ci->vendor + 8, &r0.c, 4);
  ci->vendor[12] = '\0';
  ci->family = fam == 0xf ? fam + (int)((r1.a >> 20) & 0xff) : fam;
  ci->model = fam == 0x6 || fam == 0xf ? mod + (int)(((r1.a >> 16) & 0xf) << 4) : mod;
  ci->stepping = (int)(r1.a & 0xf);
  if (ext >= 0x80000004u) {
    char *s = ci->brand, *e;
    for (i = 0; i < 3; i++) {
      const regs r = cpuid(0x80000002u + i, 0);
      memcpy(s + 16 * i, &r.a, 4), memcpy(s + 16 * i + 4, &r.b, 4);
      memcpy(s + 16 * i + 8, &r.c, 4), memcpy(s + 16 * i + 12, &r.d, 4);
    }
    s[48] = '\0';
    while (*s == ' ') s++;
    memmove(ci->brand, s, strlen(s) + 1);
    e = ci->brand + strlen(ci->brand);
    while (e > ci->brand && e[-1] == ' ') *--e = '\0';
  }
}

/* one deterministic cache descriptor (leaf 4 layout, shared by AMD's
   0x8000001D): its level, bytes and sharing; 0 when it is not a data or
   unified cache */
static int descriptor(regs r, int *level, int64_t *bytes, int *shared) {
  const unsigned type = r.a & 0x1f;
  if (type != 1 && type != 3) return 0;
  *level = (int)((r.a >> 5) & 7);
  *bytes = (int64_t)((r.b >> 22) + 1) * (((r.b >> 12) & 0x3ff) + 1) * ((r.b & 0xfff) + 1) * ((int64_t)r.c + 1);
  *shared = (int)((r.a >> 14) & 0xfff) + 1;
  return 1;
}

/* 1 when any cache was read */
static int read_caches(th_cpuinfo *ci) {
  const unsigned max = cpuid(0, 0).a, ext = cpuid(0x80000000u, 0).a;
  const int amd = strcmp(ci->vendor, "AuthenticAMD") == 0 || strcmp(ci->vendor, "HygonGenuine") == 0;
  unsigned leaf = 0, i;
  int found = 0, level, shared;
  int64_t bytes;
  if (amd && ext >= 0x8000001Du && (cpuid(0x80000001u, 0).c >> 22 & 1)) leaf = 0x8000001Du;
  else if (!amd && max >= 4) leaf = 4;
  for (i = 0; leaf != 0 && i < 16; i++) {
    const regs r = cpuid(leaf, i);
    if ((r.a & 0x1f) == 0) break;
    if (descriptor(r, &level, &bytes, &shared)) set_cache(ci, level, bytes, shared), found = 1;
  }
  if (!found && amd && ext >= 0x80000006u) {
    /* older AMD: L1d in KB, L2 in KB, L3 in 512 KB units; sharing unknown */
    const regs r5 = cpuid(0x80000005u, 0), r6 = cpuid(0x80000006u, 0);
    if (r5.c >> 24) set_cache(ci, 1, (int64_t)(r5.c >> 24) << 10, 1), found = 1;
    if (r6.c >> 16) set_cache(ci, 2, (int64_t)(r6.c >> 16) << 10, 1), found = 1;
    if (r6.d >> 18) set_cache(ci, 3, (int64_t)(r6.d >> 18) << 19, 1), found = 1;
  }
  return found;
}

static void read_isa(th_cpuinfo *ci) {
  const unsigned max = cpuid(0, 0).a;
  const regs r1 = max >= 1 ? cpuid(1, 0) : (regs){0, 0, 0, 0};
  const regs r7 = max >= 7 ? cpuid(7, 0) : (regs){0, 0, 0, 0};
  unsigned xcr0 = 0;
  /* the OS must save the vector state: AVX (XMM|YMM), AVX-512 (opmask, ZMM) */
  if (r1.c >> 27 & 1) __asm__ volatile("xgetbv" : "=a"(xcr0) : "c"(0) : "edx");
  if ((xcr0 & 6) == 6) {
    ci->fma = (int)(r1.c >> 12 & 1);
    ci->avx2 = (int)(r7.b >> 5 & 1);
  }
  if ((xcr0 & 0xe6) == 0xe6) {
    ci->avx512f = (int)(r7.b >> 16 & 1);
    ci->avx512bw = (int)(r7.b >> 30 & 1);
    ci->avx512vl = (int)(r7.b >> 31 & 1);
  }
  /* AMX: the CPU's bits (Linux grants the tile state per process on request) */
  ci->amx_tile = (int)(r7.d >> 24 & 1);
  ci->amx_bf16 = (int)(r7.d >> 22 & 1);
}
#endif

/* sysfs: "0-3,8" -> 5 */
static int count_list(const char *s) {
  int n = 0, a, b, k;
  while (sscanf(s, "%d%n", &a, &k) == 1) {
    s += k, b = a;
    if (*s == '-' && sscanf(s + 1, "%d%n", &b, &k) == 1) s += 1 + k;
    n += b - a + 1;
    if (*s != ',') break;
    s++;
  }
  return n;
}

static int read_line(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  int ok = f != NULL && fgets(buf, (int)len, f) != NULL;
  if (f != NULL) fclose(f);
  if (ok) buf[strcspn(buf, "\n")] = '\0';
  return ok;
}

/* sysfs's caches of cpu0: sizes where CPUID gave none ('fill'), sharing
   counts always (the CPUs the OS shows); 1 when any size was read */
static int read_sysfs(th_cpuinfo *ci, int fill) {
  char path[96], buf[256];
  int i, found = 0;
  for (i = 0; i < 16; i++) {
    int level, shared = 0;
    int64_t bytes;
    char unit = 'K';
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    if (!read_line(path, buf, sizeof buf)) break;
    level = atoi(buf);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
    if (!read_line(path, buf, sizeof buf) || strcmp(buf, "Instruction") == 0) continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if (!read_line(path, buf, sizeof buf) || sscanf(buf, "%lld%c", (long long *)&bytes, &unit) < 1) continue;
    bytes <<= unit == 'M' ? 20 : unit == 'K' ? 10 : 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
    if (read_line(path, buf, sizeof buf)) shared = count_list(buf);
    if (fill) set_cache(ci, level, bytes, shared > 0 ? shared : 1), found = 1;
    else if (shared > 0 && level == 1) ci->l1d_shared = shared;
    else if (shared > 0 && level == 2) ci->l2_shared = shared;
    else if (shared > 0 && level == 3) ci->l3_shared = shared;
  }
  return found;
}

static int has(const char *s, const char *word) { return strstr(s, word) != NULL; }

int th_cpuinfo_fma_units(const th_cpuinfo *ci) {
  const int f = ci->family, m = ci->model;
  if (strcmp(ci->vendor, "GenuineIntel") == 0 && f == 6 && ci->avx512f) {
    if (m == 0x55) /* Skylake/Cascade/Cooper Lake-SP, Skylake-X */
      return has(ci->brand, "Bronze") || has(ci->brand, "Silver") ||
                     (has(ci->brand, "Gold 5") && !has(ci->brand, "Gold 5122"))
                 ? 1 : 2;
    if (m == 0x6a || m == 0x6c || m == 0x8f || m == 0xcf || m == 0xad || m == 0xae || m == 0x57 ||
        m == 0x85) /* Ice Lake-SP, Sapphire/Emerald/Granite Rapids, Xeon Phi */
      return 2;
    if (m == 0x66 || m == 0x7d || m == 0x7e || m == 0x8c || m == 0x8d || m == 0xa7)
      return 1; /* client parts: Cannon, Ice, Tiger, Rocket Lake */
    return 0;
  }
  if (strcmp(ci->vendor, "GenuineIntel") == 0 && f == 6 && ci->avx2) return 2; /* Haswell on */
  if (strcmp(ci->vendor, "AuthenticAMD") == 0 || strcmp(ci->vendor, "HygonGenuine") == 0) {
    if (f == 0x17) return m < 0x30 ? 1 : 2;  /* Zen 1 splits 256-bit ops; Zen 2 */
    if (f == 0x19) return ci->avx512f ? 1 : 2; /* Zen 4 runs a zmm FMA on both 256-bit pipes; Zen 3 */
    if (f == 0x1a) /* Zen 5: 512-bit pipes but on Strix Point / Krackan (256-bit datapath) */
      return (m >= 0x20 && m <= 0x2f) || (m >= 0x60 && m <= 0x6f) ? 1 : 2;
  }
  return 0;
}

int64_t th_cpuinfo_l3_share(const th_cpuinfo *ci) {
  return ci->l3 / (ci->l3_shared > 0 ? ci->l3_shared : 1);
}

/* "32K", "1.375M", "2097152" -> bytes; -1 when malformed */
static int64_t parse_bytes(const char *s, size_t len) {
  char buf[32], *end;
  double v;
  if (len == 0 || len >= sizeof buf) return -1;
  memcpy(buf, s, len), buf[len] = '\0';
  v = strtod(buf, &end);
  if (end == buf || v < 0) return -1;
  if (*end == 'K' || *end == 'k') v *= 1024, end++;
  else if (*end == 'M' || *end == 'm') v *= 1048576, end++;
  else if (*end == 'G' || *end == 'g') v *= 1073741824.0, end++;
  if (*end == 'B' || *end == 'b') end++;
  return *end == '\0' && v < 1e15 ? (int64_t)(v + 0.5) : -1;
}

int th_cpuinfo_parse_caches(th_cpuinfo *ci, const char *spec) {
  static const char *const keys[] = {"l1d", "l2", "l3", "l1dshared", "l2shared", "l3shared"};
  const char *p = spec;
  th_cpuinfo c = *ci; /* changed only when the whole list parses */
  while (*p != '\0') {
    const size_t n = strcspn(p, ","), eq = strcspn(p, "=");
    size_t k;
    int64_t v;
    if (eq >= n) return th_error_set("TH_CPU_CACHES: expected key=size, got '%.*s'", (int)n, p);
    for (k = 0; k < 6; k++)
      if (strlen(keys[k]) == eq && strncmp(p, keys[k], eq) == 0) break;
    if (k == 6)
      return th_error_set("TH_CPU_CACHES: expected l1d, l2, l3, l1dshared, l2shared or l3shared, got '%.*s'",
                          (int)eq, p);
    v = parse_bytes(p + eq + 1, n - eq - 1);
    if (v < 0 || (k >= 3 && (v < 1 || v > 65536)))
      return th_error_set("TH_CPU_CACHES: %s expects %s, got '%.*s'", keys[k],
                          k < 3 ? "a size such as 32K or 1.5M" : "a count 1..65536", (int)(n - eq - 1),
                          p + eq + 1);
    if (k == 0) c.l1d = v;
    else if (k == 1) c.l2 = v;
    else if (k == 2) c.l3 = v;
    else if (k == 3) c.l1d_shared = (int)v;
    else if (k == 4) c.l2_shared = (int)v;
    else c.l3_shared = (int)v;
    p += n + (p[n] == ',');
  }
  *ci = c;
  ci->source = "TH_CPU_CACHES";
  return TH_OK;
}

static void init(void) {
  th_cpuinfo *ci = &info;
  const char *e;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  /* defaults: a small x86-64 core, should neither CPUID nor sysfs answer */
  ci->l1d = 32 << 10, ci->l2 = 256 << 10, ci->l3 = 0;
  ci->l1d_shared = ci->l2_shared = ci->l3_shared = 1;
  ci->source = "default";
  ci->vector_bits = 128;
  ci->logical = n > 0 ? (int)n : 1;
#ifdef HAVE_CPUID
  read_ids(ci);
  read_isa(ci);
  if (read_caches(ci)) ci->source = "cpuid";
#endif
  if (read_sysfs(ci, strcmp(ci->source, "default") == 0)) ci->source = "sysfs";
  if (ci->avx512f) ci->vector_bits = 512;
  else if (ci->avx2 && ci->fma) ci->vector_bits = 256;
  ci->fma_units = th_cpuinfo_fma_units(ci);
  e = getenv("TH_CPU_CACHES");
  if (e != NULL && *e != '\0' && th_cpuinfo_parse_caches(ci, e) != TH_OK)
    fprintf(stderr, "warning: %s (TH_CPU_CACHES ignored)\n", th_error_msg());
  e = getenv("TH_CPU_FMA_UNITS");
  if (e != NULL && atoi(e) > 0) ci->fma_units = atoi(e);
}

const th_cpuinfo *th_cpuinfo_get(void) {
  pthread_once(&once, init);
  return &info;
}
