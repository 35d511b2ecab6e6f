/* generic/index.c: the typed loops of th_index.c for 'real' tensors (included by th_index.c).
   Index arrays 'ix' are already checked and 0-based; index tensors are checked but 1-based.
   '*_rows' walk every row along 'dim' (rowview) and loop over the row inside, for many
   small slices; the callers use whole-slice copies when slices are large. */

static void TH_R(index_rows)(th_tensor *out, const th_tensor *src, int dim, const int64_t *ix,
                             int64_t n) {
  th_tensor ov = rowview(out, dim), sv = rowview(src, dim);
  const int64_t os = out->stride[dim], ss = src->stride[dim];
  TH_APPLY2(real, o, &ov, const real, s, &sv, {
    int64_t k;
    for (k = 0; k < n; k++) o[k * os] = s[ix[k] * ss];
  });
}

static void TH_R(index_copy_rows)(th_tensor *t, int dim, const int64_t *ix, int64_t n,
                                  const th_tensor *src) {
  th_tensor tv = rowview(t, dim), sv = rowview(src, dim);
  const int64_t ts = t->stride[dim], ss = src->stride[dim];
  TH_APPLY2(real, o, &tv, const real, s, &sv, {
    int64_t k;
    for (k = 0; k < n; k++) o[ix[k] * ts] = s[k * ss];
  });
}

static void TH_R(index_add_rows)(th_tensor *t, int dim, const int64_t *ix, int64_t n,
                                 const th_tensor *src) {
  th_tensor tv = rowview(t, dim), sv = rowview(src, dim);
  const int64_t ts = t->stride[dim], ss = src->stride[dim];
  TH_APPLY2(real, o, &tv, const real, s, &sv, {
    int64_t k;
    for (k = 0; k < n; k++) o[ix[k] * ts] += s[k * ss];
  });
}

/* one slice of t += the matching slice of src (equal shapes) */
static void TH_R(add_slice)(th_tensor *dst, const th_tensor *src) {
  TH_APPLY2(real, o, dst, const real, s, src, *o += *s;);
}

static void TH_R(index_fill_rows)(th_tensor *t, int dim, const int64_t *ix, int64_t n,
                                  double value) {
  th_tensor tv = rowview(t, dim);
  const int64_t ts = t->stride[dim];
  const real v = (real)value;
  TH_APPLY1(real, o, &tv, {
    int64_t k;
    for (k = 0; k < n; k++) o[ix[k] * ts] = v;
  });
}

static void TH_R(gather_rows)(th_tensor *out, const th_tensor *src, int dim, const th_tensor *idx) {
  th_tensor ov = rowview(out, dim), sv = rowview(src, dim), xv = rowview(idx, dim);
  const int64_t os = out->stride[dim], ss = src->stride[dim], xs = idx->stride[dim];
  const int64_t n = idx->size[dim];
  TH_APPLY3(real, o, &ov, const real, s, &sv, const int64_t, x, &xv, {
    int64_t k;
    for (k = 0; k < n; k++) o[k * os] = s[(x[k * xs] - TH_INDEX_BASE) * ss];
  });
}

static void TH_R(scatter_rows)(th_tensor *t, int dim, const th_tensor *idx, const th_tensor *src) {
  th_tensor tv = rowview(t, dim), xv = rowview(idx, dim), sv = rowview(src, dim);
  const int64_t ts = t->stride[dim], xs = idx->stride[dim], ss = src->stride[dim];
  const int64_t n = idx->size[dim];
  TH_APPLY3(real, o, &tv, const int64_t, x, &xv, const real, s, &sv, {
    int64_t k;
    for (k = 0; k < n; k++) o[(x[k * xs] - TH_INDEX_BASE) * ts] = s[k * ss];
  });
}

static void TH_R(scatter_fill_rows)(th_tensor *t, int dim, const th_tensor *idx, double value) {
  th_tensor tv = rowview(t, dim), xv = rowview(idx, dim);
  const int64_t ts = t->stride[dim], xs = idx->stride[dim];
  const int64_t n = idx->size[dim];
  const real v = (real)value;
  TH_APPLY2(real, o, &tv, const int64_t, x, &xv, {
    int64_t k;
    for (k = 0; k < n; k++) o[(x[k * xs] - TH_INDEX_BASE) * ts] = v;
  });
}

static void TH_R(masked_fill)(th_tensor *t, const th_tensor *mask, double value) {
  const real v = (real)value;
  TH_APPLY2(real, o, t, const uint8_t, m, mask, if (*m) *o = v;);
}

/* out: contiguous, as many elements as mask has ones */
static void TH_R(masked_select)(th_tensor *out, const th_tensor *src, const th_tensor *mask) {
  real *w = th_tensor_data(out);
  TH_APPLY2(const real, s, src, const uint8_t, m, mask, if (*m) *w++ = *s;);
}

/* src: contiguous, at least as many elements as mask has ones */
static void TH_R(masked_copy)(th_tensor *t, const th_tensor *mask, const th_tensor *src) {
  const real *r = th_tensor_data(src);
  TH_APPLY2(real, o, t, const uint8_t, m, mask, if (*m) *o = *r++;);
}

static int64_t TH_R(count_nonzero)(const th_tensor *src) {
  int64_t c = 0;
  TH_APPLY1(const real, s, src, c += (*s != 0););
  return c;
}

/* out: contiguous count x ndim LongTensor. TH_APPLY walks in row-major order,
   so a running subscript 'pos' follows the walk. */
static void TH_R(nonzero)(th_tensor *out, const th_tensor *src) {
  int64_t *w = th_tensor_data(out);
  int64_t pos[TH_MAXDIM] = {0};
  const int nd = src->ndim;
  TH_APPLY1(const real, s, src, {
    int d;
    if (*s != 0)
      for (d = 0; d < nd; d++) *w++ = pos[d] + TH_INDEX_BASE;
    for (d = nd - 1; d >= 0 && ++pos[d] == src->size[d]; d--) pos[d] = 0;
  });
}
