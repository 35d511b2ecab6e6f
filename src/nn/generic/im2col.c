/* generic/im2col.c: im2col / col2im for 'real' (included by th_nn_im2col.c) */

/* d[x] = s[x * dW] for x in [lo, hi). The usual strides are spelled out as
   constants: the compiler vectorizes a constant-stride read (loads and
   lane permutes) but reads a variable stride one element at a time, which
   made im2col 37% of a 7x7 stride-2 stem's forward (docs/dev/convbig.md) */
static inline void TH_R(im2col_row)(real *d, const real *s, int64_t lo, int64_t hi, int64_t dW) {
  int64_t x;
  switch (dW) {
  case 1:
    for (x = lo; x < hi; x++) d[x] = s[x];
    break;
  case 2:
    for (x = lo; x < hi; x++) d[x] = s[2 * x];
    break;
  case 3:
    for (x = lo; x < hi; x++) d[x] = s[3 * x];
    break;
  case 4:
    for (x = lo; x < hi; x++) d[x] = s[4 * x];
    break;
  default:
    for (x = lo; x < hi; x++) d[x] = s[x * dW];
  }
}

TH_CPU_CLONES void TH_R(th_nn_im2col)(const real *in, int64_t C, int64_t H, int64_t W, int64_t oH,
                        int64_t oW, const th_nn_window *w, int64_t y0, int64_t y1, real *col,
                        int64_t ld) {
  const int64_t kH = w->kH, kW = w->kW, dH = w->dH, dW = w->dW, padH = w->padH, padW = w->padW;
  const int64_t n = (y1 - y0) * oW;
  const int plane = dW == 1 && dH == 1 && oW == W;
  const int three = kW == 3 && dW == 1 && padW == 1 && oW == W && W >= 2;
  const int two3 = kW == 3 && dW == 2 && padW == 1 && oW == (W + 1) / 2 && W >= 2;
  int64_t c, i, j, y, x;
  for (c = 0; c < C; c++) {
    const real *src = in + c * H * W;
    for (i = 0; i < kH; i++) {
      int64_t ylo, yhi;
      valid_range(H, oH, dH, padH, i, &ylo, &yhi);
      if (ylo < y0) ylo = y0;
      if (yhi > y1) yhi = y1;
      if (ylo > yhi) ylo = yhi;
      if (three) {
        /* the common 3-wide, stride-1, same-width window: each input row
           is read once and written shifted into the three rows j = 0, 1, 2 */
        real *d0 = col + (c * kH + i) * 3 * ld - y0 * W, *d1 = d0 + ld, *d2 = d1 + ld;
        for (j = 0; j < 3; j++) {
          real *d = d0 + j * ld;
          memset(d + y0 * W, 0, sizeof(real) * (size_t)((ylo - y0) * W));
          memset(d + yhi * W, 0, sizeof(real) * (size_t)((y1 - yhi) * W));
        }
        for (y = ylo; y < yhi; y++) {
          const real *s = src + (y * dH - padH + i) * W;
          real *a = d0 + y * W, *b = d1 + y * W, *e = d2 + y * W;
          a[0] = 0;
          for (x = 1; x < W; x++) a[x] = s[x - 1];
          for (x = 0; x < W; x++) b[x] = s[x];
          for (x = 0; x < W - 1; x++) e[x] = s[x + 1];
          e[W - 1] = 0;
        }
        continue;
      }
      if (two3) {
        /* the 3-wide, stride-2 window of ResNet's downsampling layers: each
           input row is read once, split into its even elements (j = 1)
           and odd ones (j = 2, and j = 0 shifted by one) */
        real *d0 = col + (c * kH + i) * 3 * ld - y0 * oW, *d1 = d0 + ld, *d2 = d1 + ld;
        const int64_t h = W / 2;
        for (j = 0; j < 3; j++) {
          real *d = d0 + j * ld;
          memset(d + y0 * oW, 0, sizeof(real) * (size_t)((ylo - y0) * oW));
          memset(d + yhi * oW, 0, sizeof(real) * (size_t)((y1 - yhi) * oW));
        }
        for (y = ylo; y < yhi; y++) {
          const real *s = src + (y * dH - padH + i) * W;
          real *a = d0 + y * oW, *b = d1 + y * oW, *e = d2 + y * oW;
          for (x = 0; x < h; x++) {
            b[x] = s[2 * x];
            e[x] = s[2 * x + 1];
          }
          if (oW > h) b[h] = s[2 * h], e[h] = 0;
          a[0] = 0;
          for (x = 1; x < oW; x++) a[x] = e[x - 1];
        }
        continue;
      }
      for (j = 0; j < kW; j++) {
        real *dst = col + ((c * kH + i) * kW + j) * ld - y0 * oW;  /* indexed by y * oW + x */
        int64_t xlo, xhi;
        valid_range(W, oW, dW, padW, j, &xlo, &xhi);
        if (ylo >= yhi || xlo >= xhi) {
          memset(dst + y0 * oW, 0, sizeof(real) * (size_t)n);
          continue;
        }
        memset(dst + y0 * oW, 0, sizeof(real) * (size_t)((ylo - y0) * oW));
        memset(dst + yhi * oW, 0, sizeof(real) * (size_t)((y1 - yhi) * oW));
        if (plane) {
          /* output rows are input rows shifted by (i - padH, j - padW): one
             copy from the first valid element to the last, then the
             columns that wrapped around from neighbouring rows are zeroed */
          const int64_t first = ylo * W + xlo, last = (yhi - 1) * W + xhi;
          const real *s = src + (i - padH) * W + (j - padW);
          memcpy(dst + first, s + first, sizeof(real) * (size_t)(last - first));
          if (xlo > 0 || xhi < W) {
            for (y = ylo; y < yhi; y++) {
              real *d = dst + y * W;
              for (x = 0; x < xlo; x++) d[x] = 0;
              for (x = xhi; x < W; x++) d[x] = 0;
            }
          }
          continue;
        }
        for (y = ylo; y < yhi; y++) {
          real *d = dst + y * oW;
          const real *s = src + (y * dH - padH + i) * W + (j - padW);
          for (x = 0; x < xlo; x++) d[x] = 0;
          TH_R(im2col_row)(d, s, xlo, xhi, dW);
          for (x = xhi; x < oW; x++) d[x] = 0;
        }
      }
    }
  }
}

/* One input row's share of col2im for a stride dW of 2-4: d[x * dW + j -
   padW] += s_j[x] over the kW kernel columns j (s_j = s + j * ld, valid
   columns [xr[2j], xr[2j+1])). Scattered element by element that was a third
   of a 7x7 stride-2 stem's gradInput (docs/dev/convbig.md); here each s_j
   is added contiguously into phase j % dW of a split row (ph[r][m] stands
   for position m * dW + r), the phases are interleaved with a constant
   stride, and the row is added to d once. */
static inline __attribute__((always_inline)) void TH_R(col2im_row_strided)(const real *s, int64_t ld, int64_t kW, int64_t dW,
                                            int64_t padW, int64_t W, int64_t oW,
                                            const int64_t *xr, real *d) {
  real ph[COL2IM_ROW_MAX], row[COL2IM_ROW_MAX];
  const int64_t P = col2im_phase_len(W, oW, kW, dW, padW);
  int64_t j, m, x;
  for (m = 0; m < dW * P; m++) ph[m] = 0;
  for (j = 0; j < kW; j++) {
    real *t = ph + (j % dW) * P + j / dW;
    const real *sj = s + j * ld;
    for (x = xr[2 * j]; x < xr[2 * j + 1]; x++) t[x] += sj[x];
  }
  switch (dW) {
  case 2:
    for (m = 0; m < P; m++) row[2 * m] = ph[m], row[2 * m + 1] = ph[P + m];
    break;
  case 3:
    for (m = 0; m < P; m++)
      row[3 * m] = ph[m], row[3 * m + 1] = ph[P + m], row[3 * m + 2] = ph[2 * P + m];
    break;
  default:
    for (m = 0; m < P; m++)
      row[4 * m] = ph[m], row[4 * m + 1] = ph[P + m], row[4 * m + 2] = ph[2 * P + m],
      row[4 * m + 3] = ph[3 * P + m];
  }
  for (x = 0; x < W; x++) d[x] += row[x + padW];
}

TH_CPU_CLONES void TH_R(th_nn_col2im)(const real *col, int64_t C, int64_t H, int64_t W, int64_t oH,
                        int64_t oW, const th_nn_window *w, int64_t y0, int64_t y1, real *in,
                        int64_t ld) {
  const int64_t kH = w->kH, kW = w->kW, dH = w->dH, dW = w->dW, padH = w->padH, padW = w->padW;
  const int three = kW == 3 && dW == 1 && padW == 1 && oW == W && W >= 2;
  const int two3 = kW == 3 && dW == 2 && padW == 1 && oW == (W + 1) / 2 && W >= 2;
  /* split rows pay a fixed cost per row (zeroing, interleaving, adding
     back): from two kernel columns per phase on it is shared enough (7x7
     stride 2: 0.79 of the element-by-element time; 3x3 stride 2 at 14x14:
     1.11, hence two3 below) */
  const int strided = dW >= 2 && dW <= 4 && kW >= 2 * dW && kW <= COL2IM_KMAX &&
                      dW * col2im_phase_len(W, oW, kW, dW, padW) <= COL2IM_ROW_MAX;
  int64_t c, i, j, y, x, xr[2 * COL2IM_KMAX];
  for (j = 0; strided && j < kW; j++) valid_range(W, oW, dW, padW, j, xr + 2 * j, xr + 2 * j + 1);
  for (c = 0; c < C; c++) {
    real *dstp = in + c * H * W;
    for (i = 0; i < kH; i++) {
      int64_t ylo, yhi;
      valid_range(H, oH, dH, padH, i, &ylo, &yhi);
      if (ylo < y0) ylo = y0;
      if (yhi > y1) yhi = y1;
      if (three) {
        const real *a0 = col + (c * kH + i) * 3 * ld - y0 * W, *b0 = a0 + ld, *e0 = b0 + ld;
        for (y = ylo; y < yhi; y++) {
          real *d = dstp + (y * dH - padH + i) * W;
          const real *a = a0 + y * W, *b = b0 + y * W, *e = e0 + y * W;
          /* one pass, the three terms added in the order of three passes */
          d[0] = d[0] + a[1] + b[0];
          for (x = 1; x < W - 1; x++) d[x] = d[x] + a[x + 1] + b[x] + e[x - 1];
          d[W - 1] = d[W - 1] + b[W - 1] + e[W - 2];
        }
        continue;
      }
      if (two3) {
        /* the 3-wide stride-2 window: input pairs (2x, 2x + 1) take b[x]
           and a[x + 1] + e[x], added in the order of three passes */
        const real *a0 = col + (c * kH + i) * 3 * ld - y0 * oW, *b0 = a0 + ld, *e0 = b0 + ld;
        const int64_t h = W / 2;
        for (y = ylo; y < yhi; y++) {
          real *d = dstp + (y * dH - padH + i) * W;
          const real *a = a0 + y * oW, *b = b0 + y * oW, *e = e0 + y * oW;
          for (x = 0; x < h - 1; x++) {
            d[2 * x] += b[x];
            d[2 * x + 1] = d[2 * x + 1] + a[x + 1] + e[x];
          }
          d[2 * h - 2] += b[h - 1];
          d[2 * h - 1] = (h < oW ? d[2 * h - 1] + a[h] : d[2 * h - 1]) + e[h - 1];
          if (oW > h) d[2 * h] += b[h];
        }
        continue;
      }
      if (strided) {
        const real *src = col + (c * kH + i) * kW * ld - y0 * oW;
        for (y = ylo; y < yhi; y++)
          TH_R(col2im_row_strided)(src + y * oW, ld, kW, dW, padW, W, oW, xr,
                                   dstp + (y * dH - padH + i) * W);
        continue;
      }
      for (j = 0; j < kW; j++) {
        const real *src = col + ((c * kH + i) * kW + j) * ld - y0 * oW;
        int64_t xlo, xhi;
        valid_range(W, oW, dW, padW, j, &xlo, &xhi);
        for (y = ylo; y < yhi; y++) {
          const real *s = src + y * oW;
          real *d = dstp + (y * dH - padH + i) * W + (j - padW);
          if (dW == 1) {
            for (x = xlo; x < xhi; x++) d[x] += s[x];
          } else {
            for (x = xlo; x < xhi; x++) d[x * dW] += s[x];
          }
        }
      }
    }
  }
}
