/*
** th_image.h: the C side of Torch7's 'image' package.
** Images are tensors C x H x W (or H x W for the geometric kernels, seen as
** one plane). Codecs (th_image_io.c: PNG, JPEG; th_image_ppm.c: PGM,
** PPM) work on ByteTensors of 8-bit samples (16-bit PNG samples in an
** IntTensor) and memory buffers; the Lua layer reads and writes files and
** converts to float/double in [0, 1]. Geometry, colour and convolution
** kernels (th_image_ops.c, th_image_warp.c) take Float or Double tensors
** of any strides, read them through a contiguous copy, and resize their
** result. Every function
** returns TH_OK, or TH_ERR with a message (th_error.h); none raises.
*/
#ifndef TH_IMAGE_H
#define TH_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include "../tensor/th_tensor.h"

/* --- codecs: 'out' (a ByteTensor) becomes C x H x W, C in 1..4 --- */
int th_image_png_decode(th_tensor *out, const uint8_t *buf, size_t len);
/* as th_image_png_decode, but a 16-bit file's samples (0..65535) go to
   'out16' (an IntTensor) when it is not NULL; '*bits' becomes 8 or 16 */
int th_image_png_decode16(th_tensor *out, th_tensor *out16, const uint8_t *buf, size_t len,
                          int *bits);
/* PGM/PPM (P2, P3, P5, P6; maxval up to 65535, scaled to 0..255) */
int th_image_ppm_decode(th_tensor *out, const uint8_t *buf, size_t len);
/* binary P5 (1 channel or H x W) or P6 (3 channels), maxval 255 */
int th_image_ppm_encode(const th_tensor *img, uint8_t **res, size_t *len);
int th_image_jpeg_decode(th_tensor *out, const uint8_t *buf, size_t len);
/* 'img' is a ByteTensor C x H x W (C = 1..4 for PNG, 1 or 3 for JPEG) or
   H x W; '*res' is malloc'ed (the caller frees it) */
int th_image_png_encode(const th_tensor *img, uint8_t **res, size_t *len);
int th_image_jpeg_encode(const th_tensor *img, int quality, uint8_t **res, size_t *len);

/* shared by the codecs: the geometry of a ByteTensor image to write (at
   most maxc channels, 2 refused when maxc is 3); the refusal of decoded
   images too large to allocate ('bytes' a sample); an image read into interleaved H x W x C
   bytes (malloc'ed, NULL when out of memory) */
int th_image_byte_geometry(const th_tensor *img, int maxc, const char *what, int64_t *c,
                           int64_t *h, int64_t *w);
int th_image_check_decoded(const char *what, uint64_t c, uint64_t h, uint64_t w, int bytes);
uint8_t *th_image_interleave(const th_tensor *img, int64_t c, int64_t h, int64_t w);

/* --- kernels on Float/Double tensors: 'dst' takes src's dtype --- */
typedef enum th_image_interp {
  TH_IMAGE_SIMPLE = 0,   /* nearest */
  TH_IMAGE_BILINEAR,
  TH_IMAGE_BICUBIC,
  TH_IMAGE_LANCZOS       /* image.warp only */
} th_image_interp;

/* src (C x H x W or H x W) resampled to C x height x width */
int th_image_scale(th_tensor *dst, const th_tensor *src, int64_t width, int64_t height,
                   th_image_interp mode);
/* rotation by theta radians about the centre; outside corners become 0 */
int th_image_rotate(th_tensor *dst, const th_tensor *src, double theta, th_image_interp mode);

/* src (C x H x W) resampled along 'flow' (2 x oh x ow: row, column
   offsets, or positions when !offset) to C x oh x ow (th_image_warp.c) */
int th_image_warp(th_tensor *dst, const th_tensor *src, const th_tensor *flow, th_image_interp mode,
                  int offset, int pad, double pad_value);

/* colour space conversions of 3 x H x W images: RGB, HSL, HSV components
   in [0, 1]; CIE Lab (sRGB, D65) with L in [0, 100] and signed a, b */
typedef enum th_image_color {
  TH_IMAGE_RGB2HSL = 0,
  TH_IMAGE_HSL2RGB,
  TH_IMAGE_RGB2HSV,
  TH_IMAGE_HSV2RGB,
  TH_IMAGE_RGB2LAB,
  TH_IMAGE_LAB2RGB
} th_image_color;
int th_image_color_convert(th_tensor *dst, const th_tensor *src, th_image_color conv);

/* 2D convolution (the kernel flipped, as torch.conv2): planes of src
   (C x H x W or H x W) with a kernel (C x kH x kW, one per plane, or kH x kW);
   full = 0: 'valid' (H-kH+1 x W-kW+1), 1: 'full' (H+kH-1 x W+kW-1) */
int th_image_conv2(th_tensor *dst, const th_tensor *src, const th_tensor *kernel, int full);

#endif
