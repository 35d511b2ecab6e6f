/*
** fuzz_image.c: libFuzzer harness for the PNG, JPEG and PGM/PPM decoders
** (src/image/th_image_io.c, th_image_ppm.c). The first input byte picks
** the codec (modulo 3: 0 PNG, 1 JPEG, 2 PGM/PPM); the rest is the file. A decode must either fail with a
** message or give a ByteTensor C x H x W (C in 1..4, H and W positive)
** whose every byte the harness reads, so ASan sees the whole block; small
** results are encoded again and must decode to the same size. The build
** lowers the decoders' size cap (TH_IMAGE_MAX_DECODED_BYTES) so that a
** header declaring a large image is refused instead of filling memory.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "../src/image/th_image.h"
#include "../src/tensor/th_error.h"
#include "../src/tensor/th_tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what) {
  fprintf(stderr, "fuzz_image: %s (%s)\n", what, th_error_msg());
  abort();
}

enum { PNG = 0, JPEG = 1, PPM = 2 };

static int decode(int codec, th_tensor *out, const uint8_t *buf, size_t len) {
  if (codec == JPEG) return th_image_jpeg_decode(out, buf, len);
  if (codec == PPM) return th_image_ppm_decode(out, buf, len);
  return th_image_png_decode(out, buf, len);
}

/* encodes img with the codec and checks the decoded copy's size */
static void roundtrip(const th_tensor *img, int codec) {
  th_tensor back;
  uint8_t *buf = NULL;
  size_t len = 0;
  int rc = codec == JPEG ? th_image_jpeg_encode(img, 90, &buf, &len)
         : codec == PPM  ? th_image_ppm_encode(img, &buf, &len)
                         : th_image_png_encode(img, &buf, &len);
  if (rc != TH_OK) fail("re-encoding a decoded image failed");
  th_tensor_init(&back, TH_BYTE);
  if (decode(codec, &back, buf, len) != TH_OK) fail("decoding a re-encoded image failed");
  if (!th_tensor_same_size(&back, img)) fail("re-encoded image changed size");
  th_tensor_clear(&back);
  free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  th_tensor img;
  int codec, rc;
  if (size < 1) return 0;
  codec = data[0] % 3;
  th_tensor_init(&img, TH_BYTE);
  rc = decode(codec, &img, data + 1, size - 1);
  if (rc == TH_OK) {
    const uint8_t *p = th_tensor_data(&img);
    int64_t i, n = th_tensor_numel(&img);
    unsigned sum = 0;
    if (img.ndim != 3 || img.size[0] < 1 || img.size[0] > 4 || img.size[1] < 1 || img.size[2] < 1)
      fail("decoded image has a bad shape");
    for (i = 0; i < n; i++) sum += p[i];
    if (sum == 0xdeadbeefu) fprintf(stderr, "%u\n", sum);  /* keeps the reads */
    if (n <= 65536 && (codec == PNG || img.size[0] == 1 || img.size[0] == 3)) roundtrip(&img, codec);
  } else if (th_error_msg()[0] == '\0') {
    fail("a failed decode left no message");
  }
  th_tensor_clear(&img);
  return 0;
}
