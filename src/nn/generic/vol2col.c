/* generic/vol2col.c: vol2col / col2vol for 'real' (included by th_nn_vol2col.c) */

void TH_R(th_nn_vol2col)(const real *in, int64_t C, int64_t T, int64_t H, int64_t W,
                         int64_t oT, int64_t oH, int64_t oW, const th_nn_vol *v, int64_t t0,
                         int64_t t1, real *col, int64_t ld) {
  const int64_t S = oH * oW;
  int64_t c, a, b, e, ot, oy, ox;
  for (c = 0; c < C; c++) {
    const real *src = in + c * T * H * W;
    for (a = 0; a < v->kT; a++) {
      int64_t tlo, thi;
      valid_range(T, oT, v->dT, v->padT, a * v->dilT, &tlo, &thi);
      for (b = 0; b < v->kH; b++) {
        int64_t ylo, yhi;
        valid_range(H, oH, v->dH, v->padH, b * v->dilH, &ylo, &yhi);
        for (e = 0; e < v->kW; e++) {
          real *dst = col + (((c * v->kT + a) * v->kH + b) * v->kW + e) * ld;
          int64_t xlo, xhi;
          valid_range(W, oW, v->dW, v->padW, e * v->dilW, &xlo, &xhi);
          for (ot = t0; ot < t1; ot++) {
            real *dt = dst + (ot - t0) * S;
            const real *st;
            if (ot < tlo || ot >= thi || ylo >= yhi || xlo >= xhi) {
              memset(dt, 0, sizeof(real) * (size_t)S);
              continue;
            }
            st = src + (ot * v->dT - v->padT + a * v->dilT) * H * W;
            memset(dt, 0, sizeof(real) * (size_t)(ylo * oW));
            memset(dt + yhi * oW, 0, sizeof(real) * (size_t)((oH - yhi) * oW));
            for (oy = ylo; oy < yhi; oy++) {
              real *d = dt + oy * oW;
              const real *s = st + (oy * v->dH - v->padH + b * v->dilH) * W - v->padW + e * v->dilW;
              for (ox = 0; ox < xlo; ox++) d[ox] = 0;
              for (ox = xlo; ox < xhi; ox++) d[ox] = s[ox * v->dW];
              for (ox = xhi; ox < oW; ox++) d[ox] = 0;
            }
          }
        }
      }
    }
  }
}

void TH_R(th_nn_col2vol)(const real *col, int64_t C, int64_t T, int64_t H, int64_t W,
                         int64_t oT, int64_t oH, int64_t oW, const th_nn_vol *v, int64_t t0,
                         int64_t t1, real *in, int64_t ld) {
  const int64_t S = oH * oW;
  int64_t c, a, b, e, ot, oy, ox;
  for (c = 0; c < C; c++) {
    real *dstv = in + c * T * H * W;
    for (a = 0; a < v->kT; a++) {
      int64_t tlo, thi;
      valid_range(T, oT, v->dT, v->padT, a * v->dilT, &tlo, &thi);
      if (tlo < t0) tlo = t0;
      if (thi > t1) thi = t1;
      for (b = 0; b < v->kH; b++) {
        int64_t ylo, yhi;
        valid_range(H, oH, v->dH, v->padH, b * v->dilH, &ylo, &yhi);
        for (e = 0; e < v->kW; e++) {
          const real *src = col + (((c * v->kT + a) * v->kH + b) * v->kW + e) * ld;
          int64_t xlo, xhi;
          valid_range(W, oW, v->dW, v->padW, e * v->dilW, &xlo, &xhi);
          for (ot = tlo; ot < thi; ot++) {
            const real *sc = src + (ot - t0) * S;
            real *dt = dstv + (ot * v->dT - v->padT + a * v->dilT) * H * W;
            for (oy = ylo; oy < yhi; oy++) {
              const real *s = sc + oy * oW;
              real *d = dt + (oy * v->dH - v->padH + b * v->dilH) * W - v->padW + e * v->dilW;
              for (ox = xlo; ox < xhi; ox++) d[ox * v->dW] += s[ox];
            }
          }
        }
      }
    }
  }
}
