/*
** th_lua_image.c: bindings of the image package's C core (src/image),
** gathered in torch._C.image. Each takes the calling Lua function's name
** last (e.g. 'image.loadPNG') so errors name what the user called; results
** are new tensors (the Lua layer copies into a destination it was given).
*/
#include <stdlib.h>
#include <string.h>
#include "th_lua.h"
#include "../image/th_image.h"
#include "../tensor/th_error.h"

static const char *fname_at(lua_State *L, int idx, const char *dflt) {
  return lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : dflt;
}

/* decode(data, format, fname) -> samples, bits: data a string or a
   ByteTensor of file bytes, format 'png', 'jpg' or 'ppm' (PGM and PPM);
   the samples a ByteTensor, or an IntTensor of a 16-bit PNG's (bits 16) */
static int image_decode(lua_State *L) {
  const char *fn = fname_at(L, 3, "image.decompress");
  const char *fmt = luaL_checkstring(L, 2);
  const uint8_t *buf;
  size_t len;
  th_tensor *out, *t;
  int rc;
  if (lua_type(L, 1) == LUA_TSTRING) {
    buf = (const uint8_t *)lua_tolstring(L, 1, &len);
  } else {
    t = th_lua_checktensortype(L, 1, TH_BYTE, fn);
    if (t->ndim != 1 || !th_tensor_is_contiguous(t))
      return th_lua_argerror(L, 1, fn, "a contiguous 1D torch.ByteTensor expected");
    buf = th_tensor_data(t);
    len = (size_t)th_tensor_numel(t);
  }
  out = th_lua_newtensor(L, TH_BYTE);
  if (strcmp(fmt, "png") == 0) {
    th_tensor *out16 = th_lua_newtensor(L, TH_INT);
    int bits = 8;
    th_lua_check(L, th_image_png_decode16(out, out16, buf, len, &bits), fn);
    if (bits == 16) lua_replace(L, -2);
    else lua_pop(L, 1);
    lua_pushinteger(L, bits);
    return 2;
  }
  rc = strcmp(fmt, "ppm") == 0 ? th_image_ppm_decode(out, buf, len) : th_image_jpeg_decode(out, buf, len);
  th_lua_check(L, rc, fn);
  lua_pushinteger(L, 8);
  return 2;
}

/* the encoder's malloc'ed result, owned by a userdata until it is copied
   into Lua, so that an error raised meanwhile frees it at collection */
static int buffer_gc(lua_State *L) {
  uint8_t **p = luaL_checkudata(L, 1, "torch.image.buffer");
  free(*p);
  *p = NULL;
  return 0;
}

static uint8_t **push_buffer(lua_State *L) {
  uint8_t **p = lua_newuserdatauv(L, sizeof *p, 0);
  *p = NULL;
  if (luaL_newmetatable(L, "torch.image.buffer")) {
    lua_pushcfunction(L, buffer_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return p;
}

/* encode(img, format, quality, astensor, fname): a string, or a 1D ByteTensor */
static int image_encode(lua_State *L) {
  const char *fn = fname_at(L, 5, "image.compress");
  th_tensor *img = th_lua_checktensortype(L, 1, TH_BYTE, fn), *out;
  const char *fmt = luaL_checkstring(L, 2);
  int quality = (int)luaL_optinteger(L, 3, 75);
  int astensor = lua_toboolean(L, 4);
  uint8_t **res = push_buffer(L);
  size_t len = 0;
  int rc;
  if (strcmp(fmt, "png") == 0) rc = th_image_png_encode(img, res, &len);
  else if (strcmp(fmt, "ppm") == 0) rc = th_image_ppm_encode(img, res, &len);
  else rc = th_image_jpeg_encode(img, quality, res, &len);
  th_lua_check(L, rc, fn);
  if (!astensor) {
    lua_pushlstring(L, (const char *)*res, len);
  } else {
    out = th_lua_newtensor(L, TH_BYTE);
    th_lua_check(L, th_tensor_resize1d(out, (int64_t)len), fn);
    memcpy(th_tensor_data(out), *res, len);
  }
  free(*res);
  *res = NULL;
  return 1;
}

static th_image_interp check_mode(lua_State *L, int idx, const char *fn, int cubic) {
  const char *m = luaL_optstring(L, idx, "bilinear");
  if (strcmp(m, "simple") == 0) return TH_IMAGE_SIMPLE;
  if (strcmp(m, "bilinear") == 0) return TH_IMAGE_BILINEAR;
  if (cubic && strcmp(m, "bicubic") == 0) return TH_IMAGE_BICUBIC;
  th_lua_argerror(L, idx, fn, "mode must be one of: simple | bilinear%s, got '%s'",
                  cubic ? " | bicubic" : "", m);
  return TH_IMAGE_SIMPLE;
}

/* scale(src, width, height, mode, fname) */
static int image_scale(lua_State *L) {
  const char *fn = fname_at(L, 5, "image.scale");
  th_tensor *src = th_lua_checkfloating(L, 1, fn);
  int64_t w = th_lua_checkint(L, 2, fn, "width"), h = th_lua_checkint(L, 3, fn, "height");
  th_image_interp mode = check_mode(L, 4, fn, 1);
  th_tensor *dst = th_lua_newtensor(L, src->dtype);
  th_lua_check(L, th_image_scale(dst, src, w, h, mode), fn);
  return 1;
}

/* rotate(src, theta, mode, fname) */
static int image_rotate(lua_State *L) {
  const char *fn = fname_at(L, 4, "image.rotate");
  th_tensor *src = th_lua_checkfloating(L, 1, fn);
  double theta = th_lua_checknumber(L, 2, fn, "theta");
  th_image_interp mode = check_mode(L, 3, fn, 0);
  th_tensor *dst = th_lua_newtensor(L, src->dtype);
  th_lua_check(L, th_image_rotate(dst, src, theta, mode), fn);
  return 1;
}

/* warp(src, flow, mode, offset, pad, padvalue, fname) */
static int image_warp(lua_State *L) {
  static const char *const modes[] = {"simple", "bilinear", "bicubic", "lanczos", NULL};
  const char *fn = fname_at(L, 7, "image.warp");
  th_tensor *src = th_lua_checkfloating(L, 1, fn);
  th_tensor *flow = th_lua_checkfloating(L, 2, fn);
  int mode = luaL_checkoption(L, 3, NULL, modes);
  int offset = lua_toboolean(L, 4), pad = lua_toboolean(L, 5);
  double padv = th_lua_checknumber(L, 6, fn, "pad value");
  th_tensor *dst = th_lua_newtensor(L, src->dtype);
  th_lua_check(L, th_image_warp(dst, src, flow, (th_image_interp)mode, offset, pad, padv), fn);
  return 1;
}

/* color(src, conversion, fname) */
static int image_color(lua_State *L) {
  static const char *const names[] = {"rgb2hsl", "hsl2rgb", "rgb2hsv", "hsv2rgb", "rgb2lab", "lab2rgb", NULL};
  const char *fn = fname_at(L, 3, "image.color");
  th_tensor *src = th_lua_checkfloating(L, 1, fn);
  int conv = luaL_checkoption(L, 2, NULL, names);
  th_tensor *dst = th_lua_newtensor(L, src->dtype);
  th_lua_check(L, th_image_color_convert(dst, src, (th_image_color)conv), fn);
  return 1;
}

/* conv2(src, kernel, full, fname) */
static int image_conv2(lua_State *L) {
  const char *fn = fname_at(L, 4, "image.convolve");
  th_tensor *src = th_lua_checkfloating(L, 1, fn);
  th_tensor *ker = th_lua_checkfloating(L, 2, fn);
  th_tensor *dst = th_lua_newtensor(L, src->dtype);
  th_lua_check(L, th_image_conv2(dst, src, ker, lua_toboolean(L, 3)), fn);
  return 1;
}

static const luaL_Reg image_funcs[] = {
  {"decode", image_decode}, {"encode", image_encode}, {"scale", image_scale},
  {"rotate", image_rotate}, {"color", image_color},   {"conv2", image_conv2},
  {"warp", image_warp},
  {NULL, NULL}};

void th_lua_open_image(lua_State *L, int C) {
  C = lua_absindex(L, C);
  luaL_newlib(L, image_funcs);
  lua_setfield(L, C, "image");
}
