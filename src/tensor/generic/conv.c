/* generic/conv.c: convolution kernels for one floating 'real' type
   (included by th_conv.c). Geometry is 3D; 2D calls come with depth 1.
   Each output element sums its products in ascending input order, so a
   convolution and the cross-correlation with the flipped kernel give the
   same bits (Torch7's tests compare them exactly). Inputs are contiguous. */

/* the dot product of kernel k (flipped or not) with the input window of
   output position (od, orow, ocol); pads are K - 1 for 'F', 0 for 'V'.
   Terms outside the input are left out, not multiplied by zero (an inf
   in the kernel would give NaN). */
static accreal TH_R(window)(const real *x, const int64_t *xs, const real *k, const int64_t *ks,
                            const int64_t *pad, int flip, int64_t od, int64_t orow, int64_t ocol) {
  accreal sum = 0;
  int64_t t0[3], t1[3], a, b, c;
  const int64_t o[3] = {od, orow, ocol};
  int d;
  for (d = 0; d < 3; d++) {  /* kernel taps t with 0 <= o - pad + t < X */
    const int64_t first = o[d] - pad[d];
    t0[d] = first < 0 ? -first : 0;
    t1[d] = xs[d] - first < ks[d] ? xs[d] - first : ks[d];
  }
  for (a = t0[0]; a < t1[0]; a++) {
    const int64_t ka = flip ? ks[0] - 1 - a : a;
    for (b = t0[1]; b < t1[1]; b++) {
      const real *xp = x + ((od - pad[0] + a) * xs[1] + (orow - pad[1] + b)) * xs[2] + (ocol - pad[2]);
      const int64_t kb = flip ? ks[1] - 1 - b : b;
      const real *kp = k + (ka * ks[1] + kb) * ks[2];
      if (flip) {
        for (c = t0[2]; c < t1[2]; c++) sum += (accreal)xp[c] * kp[ks[2] - 1 - c];
      } else {
        for (c = t0[2]; c < t1[2]; c++) sum += (accreal)xp[c] * kp[c];
      }
    }
  }
  return sum;
}

typedef struct TH_R(conv_job) {
  real *r;
  const real *xd, *kd;
  int64_t nin, xplane_step, kstep, kin, xn, kn, on;
  const int64_t *xs, *ks, *os, *pad;
  int flip;
} TH_R(conv_job);

/* output plane j */
static void TH_R(conv_plane)(void *arg, int64_t j) {
  const TH_R(conv_job) *c = arg;
  const int64_t *os = c->os;
  real *rp = c->r + j * c->on;
  int64_t a, b, x, i;
  for (a = 0; a < os[0]; a++)
    for (b = 0; b < os[1]; b++)
      for (x = 0; x < os[2]; x++) {
        accreal sum = 0;
        for (i = 0; i < c->nin; i++)
          sum += TH_R(window)(c->xd + (j * c->xplane_step + i) * c->xn, c->xs,
                              c->kd + (j * c->kstep + i * c->kin) * c->kn, c->ks, c->pad, c->flip,
                              a, b, x);
        rp[(a * os[1] + b) * os[2] + x] = (real)sum;
      }
}

/* out (planes x os) = sum over the nin input planes i of x[i] with
   k[j * kstep + i * kin] for output plane j; kin = 0 and nin = 1 give
   the plane-by-plane form */
static int TH_R(conv)(th_tensor *out, const th_tensor *x, const th_tensor *k, int64_t planes,
                      int64_t nin, int64_t xplane_step, int64_t kstep, int64_t kin,
                      const int64_t *xs, const int64_t *ks, const int64_t *os, const int64_t *pad,
                      int flip) {
  TH_R(conv_job) c;
  c.r = (real *)th_tensor_data(out);
  c.xd = (const real *)th_tensor_data(x), c.kd = (const real *)th_tensor_data(k);
  c.xn = xs[0] * xs[1] * xs[2], c.kn = ks[0] * ks[1] * ks[2], c.on = os[0] * os[1] * os[2];
  c.nin = nin, c.xplane_step = xplane_step, c.kstep = kstep, c.kin = kin;
  c.xs = xs, c.ks = ks, c.os = os, c.pad = pad, c.flip = flip;
  th_pool_for((double)planes * (double)c.on * (double)c.kn * (double)nin > 262144.0
                  ? th_math_threads() : 1,
              planes, TH_R(conv_plane), &c);
  return TH_OK;
}
