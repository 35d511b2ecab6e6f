/*
** th_image_ppm.c: Netpbm gray maps and pixel maps (PGM P2/P5, PPM P3/P6)
** between memory buffers and ByteTensors C x H x W. A header is the magic,
** width, height and maxval, separated by white space and '#' comments;
** P2/P3 samples follow as decimal numbers, P5/P6 samples as bytes (two
** big-endian bytes each when maxval > 255) after one white space byte.
** Samples are scaled to 0..255 as Torch7 scaled ASCII samples,
** floor(255 * v / maxval) (Torch7 left binary samples unscaled; the same
** for maxval 255). Bitmaps (P1, P4) are refused with Torch7's message.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "th_image.h"
#include "../tensor/th_error.h"

typedef struct pnm_src {
  const uint8_t *buf;
  size_t len, pos;
} pnm_src;

static int is_space(uint8_t ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'; }

static void skip_blanks(pnm_src *s) {
  while (s->pos < s->len) {
    if (s->buf[s->pos] == '#') {
      while (s->pos < s->len && s->buf[s->pos] != '\n' && s->buf[s->pos] != '\r') s->pos++;
    } else if (is_space(s->buf[s->pos])) {
      s->pos++;
    } else {
      return;
    }
  }
}

/* a decimal number after blanks; 0 when there is none or it exceeds 'max' */
static int read_number(pnm_src *s, uint64_t max, uint64_t *v) {
  int digits = 0;
  skip_blanks(s);
  *v = 0;
  while (s->pos < s->len && s->buf[s->pos] >= '0' && s->buf[s->pos] <= '9') {
    *v = *v * 10 + (uint64_t)(s->buf[s->pos++] - '0');
    if (*v > max) return 0;
    digits++;
  }
  return digits > 0;
}

static int read_header(pnm_src *s, int *kind, uint64_t *w, uint64_t *h, uint64_t *maxval) {
  if (s->len < 2 || s->buf[0] != 'P') return th_error_set("corrupted file (no 'P' magic number)");
  *kind = s->buf[1];
  if (*kind != '2' && *kind != '3' && *kind != '5' && *kind != '6') {
    if (*kind >= 0x20 && *kind < 0x7f) return th_error_set("unsupported magic number: P%c", *kind);
    return th_error_set("unsupported magic number: P\\x%02x", *kind);
  }
  s->pos = 2;
  if (!read_number(s, 65500, w) || !read_number(s, 65500, h) || *w == 0 || *h == 0)
    return th_error_set("corrupted file (bad width or height, 1..65500 expected)");
  if (!read_number(s, 65535, maxval) || *maxval == 0)
    return th_error_set("corrupted file (bad maxval, 1..65535 expected)");
  return TH_OK;
}

/* the samples, interleaved, scaled to 0..255 into pix */
static int read_samples(pnm_src *s, int kind, uint64_t n, uint64_t maxval, uint8_t *pix) {
  uint64_t i, v;
  if (kind == '2' || kind == '3') {
    for (i = 0; i < n; i++) {
      if (!read_number(s, maxval, &v))
        return th_error_set("corrupted file or read error (sample %llu of %llu missing or above maxval %llu)",
                            (unsigned long long)i + 1, (unsigned long long)n, (unsigned long long)maxval);
      pix[i] = (uint8_t)(255 * v / maxval);
    }
    return TH_OK;
  }
  {
    const uint64_t bps = maxval > 255 ? 2 : 1;
    const uint8_t *d;
    if (s->pos >= s->len || !is_space(s->buf[s->pos]))
      return th_error_set("corrupted file (no white space after the header)");
    s->pos++;
    if ((uint64_t)(s->len - s->pos) / bps < n)
      return th_error_set("corrupted file or read error (%llu bytes of samples expected, %llu present)",
                          (unsigned long long)(n * bps), (unsigned long long)(s->len - s->pos));
    d = s->buf + s->pos;
    for (i = 0; i < n; i++) {
      v = bps == 2 ? ((uint64_t)d[2 * i] << 8 | d[2 * i + 1]) : d[i];
      if (v > maxval) return th_error_set("corrupted file (sample %llu above maxval %llu)",
                                          (unsigned long long)v, (unsigned long long)maxval);
      pix[i] = maxval == 255 ? (uint8_t)v : (uint8_t)(255 * v / maxval);
    }
  }
  return TH_OK;
}

int th_image_ppm_decode(th_tensor *out, const uint8_t *buf, size_t len) {
  pnm_src s = {buf, len, 0};
  uint64_t w = 0, h = 0, maxval = 0, c, i, k, hw;
  int kind = 0;
  uint8_t *pix, *d;
  int64_t size[3];
  if (read_header(&s, &kind, &w, &h, &maxval) != TH_OK) return TH_ERR;
  c = kind == '3' || kind == '6' ? 3 : 1;
  if (th_image_check_decoded(c == 3 ? "PPM" : "PGM", c, h, w, 1) != TH_OK) return TH_ERR;
  hw = h * w;
  if ((pix = malloc((size_t)(c * hw))) == NULL) return th_error_set("out of memory for a %llux%llu image",
                                                                     (unsigned long long)h, (unsigned long long)w);
  if (read_samples(&s, kind, c * hw, maxval, pix) != TH_OK) {
    free(pix);
    return TH_ERR;
  }
  size[0] = (int64_t)c, size[1] = (int64_t)h, size[2] = (int64_t)w;
  if (th_tensor_resize(out, 3, size) != TH_OK) {
    free(pix);
    return TH_ERR;
  }
  d = th_tensor_data(out);
  for (k = 0; k < c; k++)
    for (i = 0; i < hw; i++) d[k * hw + i] = pix[i * c + k];
  free(pix);
  return TH_OK;
}

int th_image_ppm_encode(const th_tensor *img, uint8_t **res, size_t *len) {
  int64_t c = 0, h = 0, w = 0;
  uint8_t *pix, *mem;
  char head[64];
  int n;
  size_t body;
  *res = NULL;
  if (th_image_byte_geometry(img, 3, "PPM/PGM encoder", &c, &h, &w) != TH_OK) return TH_ERR;
  if ((pix = th_image_interleave(img, c, h, w)) == NULL) return th_error_set("out of memory");
  n = snprintf(head, sizeof head, "P%c\n%lld %lld\n255\n", c == 3 ? '6' : '5', (long long)w, (long long)h);
  body = (size_t)(c * h * w);
  if ((mem = malloc((size_t)n + body)) == NULL) {
    free(pix);
    return th_error_set("out of memory");
  }
  memcpy(mem, head, (size_t)n);
  memcpy(mem + n, pix, body);
  free(pix);
  *res = mem, *len = (size_t)n + body;
  return TH_OK;
}
