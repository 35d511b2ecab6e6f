/* generic/im2col.c: im2col / col2im for 'real' (included by th_nn_im2col.c) */

void TH_R(th_nn_im2col)(const real *in, int64_t C, int64_t H, int64_t W, int64_t oH,
                        int64_t oW, const th_nn_window *w, int64_t y0, int64_t y1, real *col) {
  const int64_t kH = w->kH, kW = w->kW, dH = w->dH, dW = w->dW, padH = w->padH, padW = w->padW;
  const int64_t n = (y1 - y0) * oW;
  const int plane = dW == 1 && dH == 1 && oW == W;
  int64_t c, i, j, y, x;
  for (c = 0; c < C; c++) {
    const real *src = in + c * H * W;
    for (i = 0; i < kH; i++) {
      int64_t ylo, yhi;
      valid_range(H, oH, dH, padH, i, &ylo, &yhi);
      if (ylo < y0) ylo = y0;
      if (yhi > y1) yhi = y1;
      if (ylo > yhi) ylo = yhi;
      for (j = 0; j < kW; j++) {
        real *dst = col + ((c * kH + i) * kW + j) * n - y0 * oW;  /* indexed by y * oW + x */
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
          if (dW == 1) {
            for (x = xlo; x < xhi; x++) d[x] = s[x];
          } else {
            for (x = xlo; x < xhi; x++) d[x] = s[x * dW];
          }
          for (x = xhi; x < oW; x++) d[x] = 0;
        }
      }
    }
  }
}

void TH_R(th_nn_col2im)(const real *col, int64_t C, int64_t H, int64_t W, int64_t oH,
                        int64_t oW, const th_nn_window *w, int64_t y0, int64_t y1, real *in) {
  const int64_t kH = w->kH, kW = w->kW, dH = w->dH, dW = w->dW, padH = w->padH, padW = w->padW;
  const int64_t n = (y1 - y0) * oW;
  int64_t c, i, j, y, x;
  for (c = 0; c < C; c++) {
    real *dstp = in + c * H * W;
    for (i = 0; i < kH; i++) {
      int64_t ylo, yhi;
      valid_range(H, oH, dH, padH, i, &ylo, &yhi);
      if (ylo < y0) ylo = y0;
      if (yhi > y1) yhi = y1;
      for (j = 0; j < kW; j++) {
        const real *src = col + ((c * kH + i) * kW + j) * n - y0 * oW;
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
