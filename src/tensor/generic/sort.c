/* generic/sort.c: stable row sorts of 'real' tensors (included by th_sort.c).
   A row is copied out as (value, position) pairs, merge-sorted, and the
   wanted run of the sorted pairs written back; equal values keep their
   order, NaN counts as larger than every number. */

typedef struct TH_R(pair) {
  real v;
  int64_t i;
} TH_R(pair);

#if defined(TH_REAL_IS_FLOAT) || defined(TH_REAL_IS_DOUBLE)
#define SORT_ISNAN(x) isnan(x)
#else
#define SORT_ISNAN(x) 0
#endif

/* does a sort strictly before b? */
static inline int TH_R(before)(real a, real b, int desc) {
  if (desc) return a > b || (SORT_ISNAN(a) && !SORT_ISNAN(b));
  return a < b || (SORT_ISNAN(b) && !SORT_ISNAN(a));
}

/* stable: insertion sort of short runs, then bottom-up merges through tmp */
static void TH_R(sort_pairs)(TH_R(pair) *p, TH_R(pair) *tmp, int64_t n, int desc) {
  TH_R(pair) *a = p, *b = tmp, *sw;
  int64_t lo, w;
  for (lo = 0; lo < n; lo += SORT_RUN) {
    int64_t hi = lo + SORT_RUN < n ? lo + SORT_RUN : n, i, j;
    for (i = lo + 1; i < hi; i++) {
      TH_R(pair) x = a[i];
      for (j = i; j > lo && TH_R(before)(x.v, a[j - 1].v, desc); j--) a[j] = a[j - 1];
      a[j] = x;
    }
  }
  for (w = SORT_RUN; w < n; w *= 2) {
    for (lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) b[k++] = TH_R(before)(a[j].v, a[i].v, desc) ? a[j++] : a[i++];
      while (i < mid) b[k++] = a[i++];
      while (j < hi) b[k++] = a[j++];
    }
    sw = a, a = b, b = sw;
  }
  if (a != p) memcpy(p, a, sizeof *p * (size_t)n);
}

/* sorts the row s[0..n) (stride ss) and writes sorted entries first..first+count
   to v (stride vs) and their 1-based positions to x (stride xs) */
static void TH_R(sort_row)(const real *s, int64_t ss, int64_t n, real *v, int64_t vs, int64_t *x,
                           int64_t xs, int64_t first, int64_t count, int desc, TH_R(pair) *buf) {
  int64_t k;
  for (k = 0; k < n; k++) {
    buf[k].v = s[k * ss];
    buf[k].i = k;
  }
  TH_R(sort_pairs)(buf, buf + n, n, desc);
  for (k = 0; k < count; k++) {
    v[k * vs] = buf[first + k].v;
    x[k * xs] = buf[first + k].i + TH_INDEX_BASE;
  }
}

/* every row of src along dim (src->size[dim] >= 1, values and indices sized) */
static int TH_R(sort_rows)(th_tensor *values, th_tensor *indices, const th_tensor *src, int dim,
                           int desc, int64_t first, int64_t count) {
  const int64_t n = src->size[dim];
  const int64_t ss = src->stride[dim], vs = values->stride[dim], xs = indices->stride[dim];
  th_tensor sv = rowview(src, dim), vv = rowview(values, dim), xv = rowview(indices, dim);
  TH_R(pair) *buf = malloc(sizeof *buf * 2 * (size_t)n);
  if (buf == NULL) return th_error_set("out of memory sorting rows of %lld elements", (long long)n);
  TH_APPLY3(const real, s, &sv, real, v, &vv, int64_t, x, &xv,
            TH_R(sort_row)(s, ss, n, v, vs, x, xs, first, count, desc, buf););
  free(buf);
  return TH_OK;
}

#undef SORT_ISNAN
