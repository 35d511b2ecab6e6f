/* generic/ops.c: image kernels for 'real' (included by th_image_ops.c) */

/* one line of 'sn' samples (stride ss) resampled to 'dn' samples (stride ds) */
static void TH_R(line_linear)(const real *s, int64_t ss, int64_t sn, real *d, int64_t ds,
                              int64_t dn) {
  int64_t i;
  if (dn == sn) {
    for (i = 0; i < dn; i++) d[i * ds] = s[i * ss];
  } else if (dn > sn) {  /* enlarging: linear interpolation, corners aligned */
    const double r = (double)(sn - 1) / (double)(dn - 1);
    for (i = 0; i < dn - 1; i++) {
      const double p = (double)i * r;
      const int64_t k = (int64_t)p;
      const double f = p - (double)k;
      d[i * ds] = sn == 1 ? s[0] : (real)((1 - f) * s[k * ss] + f * s[(k + 1) * ss]);
    }
    d[(dn - 1) * ds] = s[(sn - 1) * ss];
  } else {  /* shrinking: the mean over the covered source interval */
    const double r = (double)sn / (double)dn;
    int64_t k0 = 0;
    double f0 = 0;
    for (i = 0; i < dn; i++) {
      const double p1 = (double)(i + 1) * r;
      int64_t k1 = (int64_t)p1, k;
      double f1 = p1 - (double)k1;
      double acc = (1 - f0) * s[k0 * ss], n = 1 - f0;
      for (k = k0 + 1; k < k1 && k < sn; k++) acc += s[k * ss], n += 1;
      if (k1 < sn) acc += f1 * s[k1 * ss], n += f1;
      d[i * ds] = (real)(acc / n);
      k0 = k1 < sn ? k1 : sn - 1, f0 = k1 < sn ? f1 : 1;
    }
  }
}

/* Catmull-Rom through p1 (x = 0) and p2 (x = 1) */
static double TH_R(cubic)(double p0, double p1, double p2, double p3, double x) {
  return p1 + 0.5 * x * (p2 - p0 + x * (2 * p0 - 5 * p1 + 4 * p2 - p3 + x * (3 * (p1 - p2) + p3 - p0)));
}

static void TH_R(line_cubic)(const real *s, int64_t ss, int64_t sn, real *d, int64_t ds,
                             int64_t dn) {
  int64_t i;
  if (dn == sn || sn == 1) {
    for (i = 0; i < dn; i++) d[i * ds] = s[(sn == 1 ? 0 : i) * ss];
    return;
  }
  {
    const double r = dn == 1 ? (double)(sn - 1) : (double)(sn - 1) / (double)(dn - 1);
    for (i = 0; i < dn - 1; i++) {
      const double p = (double)i * r;
      const int64_t k = (int64_t)p;
      const double p1 = s[k * ss], p2 = s[(k + 1) * ss];
      /* beyond the ends: the straight line through the two nearest samples */
      const double p0 = k > 0 ? s[(k - 1) * ss] : 2 * p1 - p2;
      const double p3 = k + 2 < sn ? s[(k + 2) * ss] : 2 * p2 - p1;
      d[i * ds] = (real)TH_R(cubic)(p0, p1, p2, p3, p - (double)k);
    }
    d[(dn - 1) * ds] = s[(sn - 1) * ss];
  }
}

static int TH_R(scale_run)(const th_tensor *src, th_tensor *dst, const plane_geom *g,
                           th_image_interp mode) {
  const real *in = th_tensor_data(src);
  real *out = th_tensor_data(dst);
  const int64_t oh = dst->size[dst->ndim - 2], ow = dst->size[dst->ndim - 1];
  real *tmp = NULL;
  int64_t p;
  if (mode == TH_IMAGE_SIMPLE) {
    const double rx = (double)g->w / (double)ow, ry = (double)g->h / (double)oh;
    for (p = 0; p < g->planes; p++) {
      const real *ip = in + p * g->h * g->w;
      real *op = out + p * oh * ow;
      int64_t y, x;
      for (y = 0; y < oh; y++) {
        int64_t sy = (int64_t)((double)y * ry);
        if (sy > g->h - 1) sy = g->h - 1;
        for (x = 0; x < ow; x++) {
          int64_t sx = (int64_t)((double)x * rx);
          if (sx > g->w - 1) sx = g->w - 1;
          op[y * ow + x] = ip[sy * g->w + sx];
        }
      }
    }
    return TH_OK;
  }
  /* separable: rows into tmp (h x ow), then columns into out */
  tmp = malloc(sizeof(real) * (size_t)(g->h * ow));
  if (tmp == NULL) return th_error_set("image.scale: out of memory");
  for (p = 0; p < g->planes; p++) {
    const real *ip = in + p * g->h * g->w;
    real *op = out + p * oh * ow;
    int64_t y, x;
    for (y = 0; y < g->h; y++) {
      if (mode == TH_IMAGE_BICUBIC) TH_R(line_cubic)(ip + y * g->w, 1, g->w, tmp + y * ow, 1, ow);
      else TH_R(line_linear)(ip + y * g->w, 1, g->w, tmp + y * ow, 1, ow);
    }
    for (x = 0; x < ow; x++) {
      if (mode == TH_IMAGE_BICUBIC) TH_R(line_cubic)(tmp + x, ow, g->h, op + x, ow, oh);
      else TH_R(line_linear)(tmp + x, ow, g->h, op + x, ow, oh);
    }
  }
  free(tmp);
  return TH_OK;
}

/* destination (x, y) reads source (cos t (x - xc) - sin t (y - yc) + xc,
   cos t (y - yc) + sin t (x - xc) + yc); outside the source it is 0 */
static int TH_R(rotate_run)(const th_tensor *src, th_tensor *dst, const plane_geom *g, double theta,
                            th_image_interp mode) {
  const real *in = th_tensor_data(src);
  real *out = th_tensor_data(dst);
  const double xc = (double)(g->w - 1) / 2, yc = (double)(g->h - 1) / 2;
  const double c = cos(theta), s = sin(theta);
  const int64_t hw = g->h * g->w;
  int64_t y, x, p;
  for (y = 0; y < g->h; y++)
    for (x = 0; x < g->w; x++) {
      const double sx = c * ((double)x - xc) - s * ((double)y - yc) + xc;
      const double sy = c * ((double)y - yc) + s * ((double)x - xc) + yc;
      if (mode == TH_IMAGE_SIMPLE) {
        const int64_t ix = (int64_t)round(sx), iy = (int64_t)round(sy);
        const int inside = ix >= 0 && iy >= 0 && ix < g->w && iy < g->h;
        for (p = 0; p < g->planes; p++)
          out[p * hw + y * g->w + x] = inside ? in[p * hw + iy * g->w + ix] : 0;
      } else {
        /* rounding error of the rotation must not blank a border pixel */
        const double eps = 1e-9, mx = (double)(g->w - 1), my = (double)(g->h - 1);
        const int inside = sx > -eps && sy > -eps && sx < mx + eps && sy < my + eps;
        const double cx = fmin(fmax(sx, 0), mx), cy = fmin(fmax(sy, 0), my);
        const int64_t x0 = (int64_t)floor(cx), y0 = (int64_t)floor(cy);
        const double fx = cx - (double)x0, fy = cy - (double)y0;
        const int64_t x1 = x0 + 1 < g->w ? x0 + 1 : x0, y1 = y0 + 1 < g->h ? y0 + 1 : y0;
        for (p = 0; p < g->planes; p++) {
          const real *ip = in + p * hw;
          out[p * hw + y * g->w + x] =
              inside ? (real)((1 - fy) * ((1 - fx) * ip[y0 * g->w + x0] + fx * ip[y0 * g->w + x1]) +
                              fy * ((1 - fx) * ip[y1 * g->w + x0] + fx * ip[y1 * g->w + x1]))
                     : 0;
        }
      }
    }
  return TH_OK;
}

static double TH_R(hue2rgb)(double p, double q, double t) {
  if (t < 0) t += 1;
  if (t > 1) t -= 1;
  if (t < 1. / 6) return p + (q - p) * 6 * t;
  if (t < 1. / 2) return q;
  if (t < 2. / 3) return p + (q - p) * (2. / 3 - t) * 6;
  return p;
}

/* hue in [0, 1) of an RGB triple with maximum mx and range d > 0 */
static double TH_R(hue)(double r, double g, double b, double mx, double d) {
  double h;
  if (mx == r) h = (g - b) / d + (g < b ? 6 : 0);
  else if (mx == g) h = (b - r) / d + 2;
  else h = (r - g) / d + 4;
  return h / 6;
}

/* CIE Lab of sRGB under the D65 white (Bruce Lindbloom's equations):
   sRGB -> linear -> XYZ -> Lab, and back */
#define LAB_EPS (216.0 / 24389.0)
#define LAB_K (24389.0 / 27.0)
#define LAB_XN 0.950456
#define LAB_ZN 1.088754

static double TH_R(srgb_expand)(double v) {
  return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static double TH_R(srgb_compress)(double v) {
  return v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
}

static double TH_R(lab_f)(double t) { return t > LAB_EPS ? cbrt(t) : (LAB_K * t + 16) / 116; }

static double TH_R(lab_finv)(double f) {
  const double t = f * f * f;
  return t > LAB_EPS ? t : (116 * f - 16) / LAB_K;
}

static void TH_R(rgb2lab)(double r, double g, double b, double *o) {
  double x, y, z, fx, fy, fz;
  r = TH_R(srgb_expand)(r), g = TH_R(srgb_expand)(g), b = TH_R(srgb_expand)(b);
  x = (0.412453 * r + 0.357580 * g + 0.180423 * b) / LAB_XN;
  y = 0.212671 * r + 0.715160 * g + 0.072169 * b;
  z = (0.019334 * r + 0.119193 * g + 0.950227 * b) / LAB_ZN;
  fx = TH_R(lab_f)(x), fy = TH_R(lab_f)(y), fz = TH_R(lab_f)(z);
  o[0] = 116 * fy - 16;
  o[1] = 500 * (fx - fy);
  o[2] = 200 * (fy - fz);
}

static void TH_R(lab2rgb)(double l, double a, double bb, double *o) {
  const double fy = (l + 16) / 116, fx = fy + a / 500, fz = fy - bb / 200;
  const double x = TH_R(lab_finv)(fx) * LAB_XN, z = TH_R(lab_finv)(fz) * LAB_ZN;
  const double y = l > LAB_K * LAB_EPS ? fy * fy * fy : l / LAB_K;
  o[0] = TH_R(srgb_compress)(3.2404542 * x - 1.5371385 * y - 0.4985314 * z);
  o[1] = TH_R(srgb_compress)(-0.9692660 * x + 1.8760108 * y + 0.0415560 * z);
  o[2] = TH_R(srgb_compress)(0.0556434 * x - 0.2040259 * y + 1.0572252 * z);
}

static int TH_R(color_run)(const th_tensor *src, th_tensor *dst, int64_t n, th_image_color conv) {
  const real *in = th_tensor_data(src);
  real *out = th_tensor_data(dst);
  const int64_t s1 = dst->stride[0], sh = dst->stride[1], sw = dst->stride[2], w = dst->size[2];
  int64_t i;
  for (i = 0; i < n; i++) {
    const double a = in[i], b = in[n + i], c = in[2 * n + i];
    double r0, r1, r2;
    const int64_t o = (i / w) * sh + (i % w) * sw;
    if (conv == TH_IMAGE_RGB2HSL || conv == TH_IMAGE_RGB2HSV) {
      const double mx = fmax(a, fmax(b, c)), mn = fmin(a, fmin(b, c)), d = mx - mn;
      r0 = d == 0 ? 0 : TH_R(hue)(a, b, c, mx, d);
      if (conv == TH_IMAGE_RGB2HSL) {
        r2 = (mx + mn) / 2;
        r1 = d == 0 ? 0 : r2 > 0.5 ? d / (2 - mx - mn) : d / (mx + mn);
      } else {
        r2 = mx;
        r1 = mx == 0 ? 0 : d / mx;
      }
    } else if (conv == TH_IMAGE_HSL2RGB) {
      if (b == 0) {
        r0 = r1 = r2 = c;
      } else {
        const double q = c < 0.5 ? c * (1 + b) : c + b - c * b, p = 2 * c - q;
        r0 = TH_R(hue2rgb)(p, q, a + 1. / 3);
        r1 = TH_R(hue2rgb)(p, q, a);
        r2 = TH_R(hue2rgb)(p, q, a - 1. / 3);
      }
    } else if (conv == TH_IMAGE_RGB2LAB || conv == TH_IMAGE_LAB2RGB) {
      double o3[3];
      if (conv == TH_IMAGE_RGB2LAB) TH_R(rgb2lab)(a, b, c, o3);
      else TH_R(lab2rgb)(a, b, c, o3);
      r0 = o3[0], r1 = o3[1], r2 = o3[2];
    } else {  /* HSV2RGB */
      const double h6 = a * 6, f = h6 - floor(h6);
      const double p = c * (1 - b), q = c * (1 - f * b), t = c * (1 - (1 - f) * b);
      int sector = (int)fmod(floor(h6), 6);
      if (sector < 0) sector += 6;
      switch (sector) {
        case 0: r0 = c, r1 = t, r2 = p; break;
        case 1: r0 = q, r1 = c, r2 = p; break;
        case 2: r0 = p, r1 = c, r2 = t; break;
        case 3: r0 = p, r1 = q, r2 = c; break;
        case 4: r0 = t, r1 = p, r2 = c; break;
        default: r0 = c, r1 = p, r2 = q; break;
      }
    }
    out[o] = (real)r0;
    out[s1 + o] = (real)r1;
    out[2 * s1 + o] = (real)r2;
  }
  return TH_OK;
}

typedef struct TH_R(conv2_job) {
  const real *in, *kd;
  real *out;
  int64_t oh, ow;
  const plane_geom *g, *k;
  int full;
} TH_R(conv2_job);

/* out[y][x] = sum in[y + i][x + j] k[kh-1-i][kw-1-j] ('valid'), or the
   full sum over every overlap ('full'), of plane p */
static void TH_R(conv2_plane)(void *arg, int64_t p) {
  const TH_R(conv2_job) *c = arg;
  const plane_geom *g = c->g, *k = c->k;
  const int64_t oh = c->oh, ow = c->ow;
  const int full = c->full;
  const real *ip = c->in + p * g->h * g->w;
  const real *kp = c->kd + (k->planes > 1 ? p : 0) * k->h * k->w;
  real *op = c->out + p * oh * ow;
  int64_t y, x, i, j;
  for (y = 0; y < oh; y++)
    for (x = 0; x < ow; x++) {
      double acc = 0;
      for (i = 0; i < k->h; i++) {
        /* input row for kernel row i: y + (kh-1-i) in 'valid', y - i in 'full' */
        const int64_t iy = full ? y - i : y + k->h - 1 - i;
        if (iy < 0 || iy >= g->h) continue;
        for (j = 0; j < k->w; j++) {
          const int64_t ix = full ? x - j : x + k->w - 1 - j;
          if (ix < 0 || ix >= g->w) continue;
          acc += (double)ip[iy * g->w + ix] * (double)kp[i * k->w + j];
        }
      }
      op[y * ow + x] = (real)acc;
    }
}

/* every plane, over th_pool's threads from a million multiply-adds */
static int TH_R(conv2_run)(const th_tensor *src, const th_tensor *ker, th_tensor *dst,
                           const plane_geom *g, const plane_geom *k, int full) {
  TH_R(conv2_job) c;
  c.in = th_tensor_data(src), c.kd = th_tensor_data(ker), c.out = th_tensor_data(dst);
  c.oh = dst->size[dst->ndim - 2], c.ow = dst->size[dst->ndim - 1];
  c.g = g, c.k = k, c.full = full;
  th_pool_for(g->planes * c.oh * c.ow * k->h * k->w > 1000000 ? th_pool_threads() : 1, g->planes,
              TH_R(conv2_plane), &c);
  return TH_OK;
}
