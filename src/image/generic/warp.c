/* generic/warp.c: image.warp's resampling for 'real' (included by th_image_warp.c) */

/* Lanczos (a = 3) weights of the 6 taps from floor(t) - 2 for position t */
static void TH_R(lanczos_taps)(double t, double *wt) {
  const double a = 3;
  int i;
  for (i = 0; i < 6; i++) {
    const double d = fabs(t - (floor(t) - 2 + i));
    if (d < 1e-6) wt[i] = 1;
    else if (d > a) wt[i] = 0;
    else wt[i] = a * sin(M_PI * d) * sin(M_PI * d / a) / (M_PI * M_PI * d * d);
  }
}

/* the value at (ix, iy) of one plane, both inside [0, w-1] x [0, h-1] */
static double TH_R(sample)(const real *ip, int64_t w, int64_t h, double ix, double iy,
                           th_image_interp mode, double pad) {
  const int64_t x0 = (int64_t)floor(ix), y0 = (int64_t)floor(iy);
  const double fx = ix - (double)x0, fy = iy - (double)y0;
  int64_t i, j;
  if (mode == TH_IMAGE_SIMPLE) return ip[(int64_t)floor(iy + 0.5) * w + (int64_t)floor(ix + 0.5)];
  if (mode == TH_IMAGE_BILINEAR) {
    const int64_t x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    return (1 - fy) * ((1 - fx) * ip[y0 * w + x0] + fx * ip[y0 * w + x1]) +
           fy * ((1 - fx) * ip[y1 * w + x0] + fx * ip[y1 * w + x1]);
  }
  if (mode == TH_IMAGE_BICUBIC) {
    /* taps off the image read the pad value (Torch7's) */
    double row[4], p[4];
    for (i = 0; i < 4; i++) {
      const int64_t v = y0 + i - 1;
      for (j = 0; j < 4; j++) {
        const int64_t u = x0 + j - 1;
        p[j] = v < 0 || v >= h || u < 0 || u >= w ? pad : (double)ip[v * w + u];
      }
      row[i] = warp_cubic(p[0], p[1], p[2], p[3], fx);
    }
    return warp_cubic(row[0], row[1], row[2], row[3], fy);
  }
  {
    /* Lanczos: taps clamped to the border, weights normalized */
    double wu[6], wv[6], acc = 0, sum = 0;
    TH_R(lanczos_taps)(ix, wu);
    TH_R(lanczos_taps)(iy, wv);
    for (i = 0; i < 6; i++) {
      const int64_t v = y0 - 2 + i < 0 ? 0 : y0 - 2 + i >= h ? h - 1 : y0 - 2 + i;
      for (j = 0; j < 6; j++) {
        const int64_t u = x0 - 2 + j < 0 ? 0 : x0 - 2 + j >= w ? w - 1 : x0 - 2 + j;
        acc += wv[i] * wu[j] * (double)ip[v * w + u];
        sum += wv[i] * wu[j];
      }
    }
    return acc / sum;
  }
}

/* dst (planes x oh x ow) at (x, y) samples src at (y, x) + flow(y, x), or
   at flow(y, x) alone when !offset; flow is 2 x oh x ow (rows, then columns) */
static int TH_R(warp_run)(const th_tensor *src, const th_tensor *flow, th_tensor *dst,
                          const plane_geom *g, int64_t oh, int64_t ow, th_image_interp mode,
                          int offset, int pad, double padv) {
  const real *in = th_tensor_data(src), *fl = th_tensor_data(flow);
  real *out = th_tensor_data(dst);
  const int64_t ohw = oh * ow, ihw = g->h * g->w;
  int64_t y, x, p;
  for (y = 0; y < oh; y++)
    for (x = 0; x < ow; x++) {
      double iy = (double)fl[y * ow + x] + (offset ? (double)y : 0);
      double ix = (double)fl[ohw + y * ow + x] + (offset ? (double)x : 0);
      const int off = !(iy >= 0 && iy <= (double)(g->h - 1) && ix >= 0 && ix <= (double)(g->w - 1));
      if (off && pad) {
        for (p = 0; p < g->planes; p++) out[p * ohw + y * ow + x] = (real)padv;
        continue;
      }
      /* clamped to the image (NaN to 0) */
      ix = ix > 0 ? (ix < (double)(g->w - 1) ? ix : (double)(g->w - 1)) : 0;
      iy = iy > 0 ? (iy < (double)(g->h - 1) ? iy : (double)(g->h - 1)) : 0;
      for (p = 0; p < g->planes; p++)
        out[p * ohw + y * ow + x] = (real)TH_R(sample)(in + p * ihw, g->w, g->h, ix, iy, mode, padv);
    }
  return TH_OK;
}
