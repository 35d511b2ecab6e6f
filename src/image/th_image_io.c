/*
** th_image_io.c: PNG (libpng's simplified API) and JPEG (libjpeg-turbo)
** codecs (PNG through libpng's low-level reader and simplified writer)
** between memory buffers and ByteTensors C x H x W of 8-bit samples.
** Decoding keeps the file's channels: gray 1, gray+alpha 2, RGB 3,
** RGBA 4 (palettes expand to RGB or RGBA); 16-bit PNG samples are kept
** (th_image_png_decode16) or reduced to their high byte, as Torch7's. libjpeg reports errors by calling error_exit, whose default
** calls exit(): here it longjmps back into the function that started the
** codec, which frees what it allocated and returns TH_ERR with libjpeg's
** message. Every object that must be freed after a longjmp is allocated
** before setjmp or kept in a 'volatile' pointer.
*/
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>
#include <jpeglib.h>
#include "th_image.h"
#include "../tensor/th_error.h"

/* the image's geometry from a ByteTensor C x H x W or H x W */
int th_image_byte_geometry(const th_tensor *img, int maxc, const char *what, int64_t *c,
                           int64_t *h, int64_t *w) {
  char s[128];
  if (img->dtype != TH_BYTE)
    return th_error_set("%s expects a torch.ByteTensor, got torch.%sTensor", what,
                        th_dtype_name[img->dtype]);
  if (img->ndim == 2) {
    *c = 1, *h = img->size[0], *w = img->size[1];
  } else if (img->ndim == 3) {
    *c = img->size[0], *h = img->size[1], *w = img->size[2];
  } else {
    return th_error_set("%s expects an image C x H x W or H x W, got %dD %s", what, img->ndim,
                        th_tensor_sizestr(img, s, sizeof s));
  }
  if (*c < 1 || *c > maxc || (maxc == 3 && *c == 2))
    return th_error_set("%s cannot write %lld channels (%s)", what, (long long)*c,
                        maxc == 3 ? "1 or 3" : "1 to 4");
  if (*h < 1 || *w < 1 || *h > 65500 || *w > 65500)
    return th_error_set("%s: image size %s out of range", what, th_tensor_sizestr(img, s, sizeof s));
  return TH_OK;
}

/* decoded images beyond this many bytes are refused before allocating
   (a 50-byte file can declare 65535 x 65535 pixels); the fuzz build lowers it */
#ifndef TH_IMAGE_MAX_DECODED_BYTES
#define TH_IMAGE_MAX_DECODED_BYTES ((uint64_t)1 << 31)
#endif
#define MAX_DECODED_BYTES ((uint64_t)TH_IMAGE_MAX_DECODED_BYTES)

int th_image_check_decoded(const char *what, uint64_t c, uint64_t h, uint64_t w, int bytes) {
  if (c * h * w * (uint64_t)bytes > MAX_DECODED_BYTES)
    return th_error_set("%s image %llux%llu with %llu channels%s is too large (more than %llu bytes)",
                        what, (unsigned long long)h, (unsigned long long)w, (unsigned long long)c,
                        bytes > 1 ? " of 16-bit samples (held in 4 bytes)" : "",
                        (unsigned long long)MAX_DECODED_BYTES);
  return TH_OK;
}

/* interleaved H x W x C bytes <-> planar C x H x W */
static void deinterleave(uint8_t *dst, const uint8_t *src, int64_t c, int64_t hw) {
  int64_t i, k;
  for (k = 0; k < c; k++)
    for (i = 0; i < hw; i++) dst[k * hw + i] = src[i * c + k];
}

/* 'img' read through its strides into interleaved H x W x C bytes */
uint8_t *th_image_interleave(const th_tensor *img, int64_t c, int64_t h, int64_t w) {
  const uint8_t *d = th_tensor_data(img);
  const int64_t sc = img->ndim == 3 ? img->stride[0] : 0;
  const int64_t sh = img->stride[img->ndim - 2], sw = img->stride[img->ndim - 1];
  uint8_t *res = malloc((size_t)(c * h * w));
  int64_t y, x, k;
  if (res == NULL) return NULL;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      for (k = 0; k < c; k++) res[(y * w + x) * c + k] = d[k * sc + y * sh + x * sw];
  return res;
}

/* ---------------------------------------------------------------- PNG */

/* libpng's low-level reader on a memory buffer: its errors longjmp back
   into th_image_png_decode16 with the message kept here */
typedef struct png_mem {
  const uint8_t *buf;
  size_t len, pos;
  char msg[200];
} png_mem;

static void png_mem_read(png_structp png, png_bytep data, size_t n) {
  png_mem *m = png_get_io_ptr(png);
  if (n > m->len - m->pos) png_error(png, "unexpected end of data");
  memcpy(data, m->buf + m->pos, n);
  m->pos += n;
}

static void png_mem_error(png_structp png, png_const_charp msg) {
  png_mem *m = png_get_error_ptr(png);
  snprintf(m->msg, sizeof m->msg, "%s", msg);
  png_longjmp(png, 1);
}

static void png_mem_warning(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

/* palettes expand to RGB (RGBA with a tRNS chunk), gray below 8 bits to 8
   bits; 16-bit samples stay 16-bit (Torch7's transforms) */
static void png_transforms(png_structp png, png_infop info) {
  int ctype = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
  if (ctype == PNG_COLOR_TYPE_PALETTE) {
    png_set_palette_to_rgb(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  } else if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8) {
    png_set_expand_gray_1_2_4_to_8(png);
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
}

/* interleaved rows (big-endian 16-bit samples when bits == 16) -> planar
   C x H x W: 16-bit samples into out16 (an IntTensor) when given, else
   their high byte into out */
static int png_store(th_tensor *out, th_tensor *out16, const uint8_t *pix, int64_t c,
                     int64_t h, int64_t w, int bits) {
  int64_t size[3] = {c, h, w}, i, k, hw = h * w;
  if (bits != 16) {
    if (th_tensor_resize(out, 3, size) != TH_OK) return TH_ERR;
    deinterleave(th_tensor_data(out), pix, c, hw);
  } else if (out16 != NULL) {
    int32_t *d;
    if (th_tensor_resize(out16, 3, size) != TH_OK) return TH_ERR;
    d = th_tensor_data(out16);
    for (k = 0; k < c; k++)
      for (i = 0; i < hw; i++) d[k * hw + i] = (pix[2 * (i * c + k)] << 8) | pix[2 * (i * c + k) + 1];
  } else {
    uint8_t *d;
    if (th_tensor_resize(out, 3, size) != TH_OK) return TH_ERR;
    d = th_tensor_data(out);
    for (k = 0; k < c; k++)
      for (i = 0; i < hw; i++) d[k * hw + i] = pix[2 * (i * c + k)];
  }
  return TH_OK;
}

int th_image_png_decode16(th_tensor *out, th_tensor *out16, const uint8_t *buf, size_t len,
                          int *bits) {
  png_mem m;
  png_structp png;
  png_infop info;
  uint8_t *volatile pix = NULL;
  png_bytep *volatile rows = NULL;
  volatile int reading = 0;
  png_uint_32 w, h, y;
  size_t rowbytes;
  int c, rc;
  if (out16 != NULL && out16->dtype != TH_INT) return th_error_set("internal: 16-bit PNG samples need an IntTensor");
  if (len < 8 || png_sig_cmp(buf, 0, 8) != 0) return th_error_set("not a PNG file (bad signature)");
  m.buf = buf, m.len = len, m.pos = 0, m.msg[0] = '\0';
  png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &m, png_mem_error, png_mem_warning);
  if (png == NULL) return th_error_set("out of memory for a PNG decoder");
  info = png_create_info_struct(png);
  if (info == NULL) {
    png_destroy_read_struct(&png, NULL, NULL);
    return th_error_set("out of memory for a PNG decoder");
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, NULL);
    free(pix);
    free(rows);
    /* Torch7's wording: scripts match "Error during init_io" */
    return th_error_set("corrupt PNG file (Error during %s: %s)", reading ? "read_image" : "init_io", m.msg);
  }
  png_set_read_fn(png, &m, png_mem_read);
  png_read_info(png, info);
  *bits = png_get_bit_depth(png, info) == 16 ? 16 : 8;
  png_transforms(png, info);
  w = png_get_image_width(png, info), h = png_get_image_height(png, info);
  c = png_get_channels(png, info);
  rowbytes = png_get_rowbytes(png, info);
  if (c < 1 || c > 4 || rowbytes != (size_t)w * (size_t)c * (*bits / 8))
    png_error(png, "unexpected sample layout");
  /* 16-bit samples take 4 bytes each in their IntTensor */
  if (th_image_check_decoded("PNG", (uint64_t)c, h, w, *bits == 16 ? 4 : 1) != TH_OK) {
    png_destroy_read_struct(&png, &info, NULL);
    return TH_ERR;
  }
  pix = malloc(rowbytes * h);
  rows = malloc(sizeof(png_bytep) * h);
  if (pix == NULL || rows == NULL) {
    png_destroy_read_struct(&png, &info, NULL);
    free(pix);
    free(rows);
    return th_error_set("out of memory for a %ux%u PNG image", (unsigned)h, (unsigned)w);
  }
  reading = 1;
  for (y = 0; y < h; y++) rows[y] = pix + (size_t)y * rowbytes;
  png_read_image(png, rows);
  png_read_end(png, NULL);
  png_destroy_read_struct(&png, &info, NULL);
  rc = png_store(out, out16, pix, c, h, w, *bits);
  free(pix);
  free(rows);
  return rc;
}

int th_image_png_decode(th_tensor *out, const uint8_t *buf, size_t len) {
  int bits = 8;
  return th_image_png_decode16(out, NULL, buf, len, &bits);
}

int th_image_png_encode(const th_tensor *img, uint8_t **res, size_t *len) {
  static const png_uint_32 formats[5] = {0, PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB,
                                         PNG_FORMAT_RGBA};
  png_image im;
  png_alloc_size_t n = 0;
  int64_t c = 0, h = 0, w = 0;
  uint8_t *pix, *mem;
  *res = NULL;
  if (th_image_byte_geometry(img, 4, "PNG encoder", &c, &h, &w) != TH_OK) return TH_ERR;
  if ((pix = th_image_interleave(img, c, h, w)) == NULL) return th_error_set("out of memory");
  memset(&im, 0, sizeof im);
  im.version = PNG_IMAGE_VERSION;
  im.width = (png_uint_32)w, im.height = (png_uint_32)h;
  im.format = formats[c];
  if (!png_image_write_get_memory_size(im, n, 0, pix, 0, NULL)) {
    free(pix);
    return th_error_set("PNG encoder failed (%s)", im.message);
  }
  if ((mem = malloc(n)) == NULL) {
    free(pix);
    return th_error_set("out of memory");
  }
  if (!png_image_write_to_memory(&im, mem, &n, 0, pix, 0, NULL)) {
    free(pix);
    free(mem);
    return th_error_set("PNG encoder failed (%s)", im.message);
  }
  free(pix);
  *res = mem, *len = n;
  return TH_OK;
}

/* --------------------------------------------------------------- JPEG */

typedef struct jerr {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  char msg[JMSG_LENGTH_MAX];
} jerr;

static void jerr_exit(j_common_ptr cinfo) {
  jerr *e = (jerr *)cinfo->err;
  (*cinfo->err->format_message)(cinfo, e->msg);
  longjmp(e->jump, 1);
}

static void jerr_quiet(j_common_ptr cinfo) { (void)cinfo; }  /* warnings are not printed */

static void jerr_init(jerr *e) {
  jpeg_std_error(&e->pub);
  e->pub.error_exit = jerr_exit;
  e->pub.output_message = jerr_quiet;
  e->msg[0] = '\0';
}

int th_image_jpeg_decode(th_tensor *out, const uint8_t *buf, size_t len) {
  struct jpeg_decompress_struct cinfo;
  jerr e;
  uint8_t *volatile tmp = NULL;
  int64_t size[3];
  int c;
  if (len < 3 || buf[0] != 0xff || buf[1] != 0xd8) return th_error_set("not a valid JPEG file");
  memset(&cinfo, 0, sizeof cinfo);
  jerr_init(&e);
  cinfo.err = &e.pub;
  if (setjmp(e.jump)) {
    jpeg_destroy_decompress(&cinfo);
    free(tmp);
    return th_error_set("corrupt JPEG file (%s)", e.msg);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, buf, (unsigned long)len);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  if (th_image_check_decoded("JPEG", cinfo.num_components == 1 ? 1 : 3, cinfo.image_height,
                    cinfo.image_width, 1) != TH_OK) {
    jpeg_destroy_decompress(&cinfo);
    return TH_ERR;
  }
  jpeg_start_decompress(&cinfo);
  c = cinfo.output_components;
  size[0] = c, size[1] = cinfo.output_height, size[2] = cinfo.output_width;
  tmp = malloc((size_t)(size[0] * size[1] * size[2]));
  if (tmp == NULL) {
    jpeg_destroy_decompress(&cinfo);
    return th_error_set("out of memory for a %lldx%lld JPEG image", (long long)size[1],
                        (long long)size[2]);
  }
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = tmp + (size_t)cinfo.output_scanline * (size_t)(size[2] * c);
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  if (th_tensor_resize(out, 3, size) != TH_OK) {
    free(tmp);
    return TH_ERR;
  }
  deinterleave(th_tensor_data(out), tmp, c, size[1] * size[2]);
  free(tmp);
  return TH_OK;
}

/* compresses interleaved rows; the only frame that setjmp returns into */
static int jpeg_compress(uint8_t *pix, int c, JDIMENSION h, JDIMENSION w, int quality,
                         uint8_t **res, size_t *len) {
  struct jpeg_compress_struct cinfo;
  jerr e;
  unsigned char *volatile mem = NULL;
  unsigned long n = 0;
  memset(&cinfo, 0, sizeof cinfo);
  jerr_init(&e);
  cinfo.err = &e.pub;
  if (setjmp(e.jump)) {
    jpeg_destroy_compress(&cinfo);
    free(mem);
    return th_error_set("JPEG encoder failed (%s)", e.msg);
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, (unsigned char **)&mem, &n);
  cinfo.image_width = w;
  cinfo.image_height = h;
  cinfo.input_components = c;
  cinfo.in_color_space = c == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = pix + (size_t)cinfo.next_scanline * (size_t)w * (size_t)c;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  *res = mem, *len = n;
  return TH_OK;
}

int th_image_jpeg_encode(const th_tensor *img, int quality, uint8_t **res, size_t *len) {
  int64_t c = 0, h = 0, w = 0;
  uint8_t *pix;
  int rc;
  *res = NULL;
  if (quality < 1 || quality > 100) return th_error_set("quality must be 1..100, got %d", quality);
  if (th_image_byte_geometry(img, 3, "JPEG encoder", &c, &h, &w) != TH_OK) return TH_ERR;
  if ((pix = th_image_interleave(img, c, h, w)) == NULL) return th_error_set("out of memory");
  rc = jpeg_compress(pix, (int)c, (JDIMENSION)h, (JDIMENSION)w, quality, res, len);
  free(pix);
  return rc;
}
