/*
** th_lua_serialize.c: the bulk parts of torch.save/torch.load (the object
** walk itself is lua/torch/File.lua). Storage payloads move as whole
** blocks between storages and files or strings, ascii number lists are
** formatted and parsed in C, and tensors read from a file are rebuilt
** here with every field checked, so that a corrupt file gives an error
** and never a view outside its storage.
** Everything lives in torch._C.serialize. The binary format is Torch7's
** on a little-endian machine; payloads are copied as they are in memory,
** so this file refuses to work on a big-endian host.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "th_lua.h"
#include "../tensor/th_error.h"

static int little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

static FILE *checkfile(lua_State *L, int arg, const char *fname) {
  luaL_Stream *p = luaL_checkudata(L, arg, LUA_FILEHANDLE);
  if (p->closef == NULL || p->f == NULL) th_lua_argerror(L, arg, fname, "file is closed");
  return p->f;
}

/* S.write(fh, storage) -> true | nil, message: the raw elements */
static int sz_write(lua_State *L) {
  FILE *f = checkfile(L, 1, "serialize.write");
  th_storage *s = th_lua_checkstorage(L, 2, "serialize.write");
  size_t n = th_storage_bytes(s);
  if (n > 0 && fwrite(s->data, 1, n, f) != n) {
    lua_pushnil(L);
    lua_pushfstring(L, "write failed: %s", strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* S.read(fh, storage, byteoffset) -> bytes read into the storage from byteoffset on */
static int sz_read(lua_State *L) {
  FILE *f = checkfile(L, 1, "serialize.read");
  th_storage *s = th_lua_checkstorage(L, 2, "serialize.read");
  lua_Integer off = luaL_checkinteger(L, 3);
  size_t n = th_storage_bytes(s);
  if (off < 0 || (size_t)off > n) return luaL_error(L, "serialize.read: offset %I out of range", off);
  lua_pushinteger(L, (lua_Integer)fread((char *)s->data + off, 1, n - (size_t)off, f));
  return 1;
}

/* S.setbytes(storage, byteoffset, str, pos, n): n bytes of str from pos (1-based) */
static int sz_setbytes(lua_State *L) {
  th_storage *s = th_lua_checkstorage(L, 1, "serialize.setbytes");
  lua_Integer off = luaL_checkinteger(L, 2);
  size_t len;
  const char *str = luaL_checklstring(L, 3, &len);
  lua_Integer pos = luaL_checkinteger(L, 4), n = luaL_checkinteger(L, 5);
  size_t bytes = th_storage_bytes(s);
  if (off < 0 || n < 0 || (size_t)off > bytes || (size_t)n > bytes - (size_t)off || pos < 1 ||
      (size_t)(pos - 1) > len || (size_t)n > len - (size_t)(pos - 1))
    return luaL_error(L, "serialize.setbytes: range out of bounds");
  if (n > 0) memcpy((char *)s->data + off, str + pos - 1, (size_t)n);
  return 0;
}

/* S.fromint32(storage, str, pos): a LongStorage from 4-byte integers ('b32' files) */
static int sz_fromint32(lua_State *L) {
  th_storage *s = th_lua_checkstorage(L, 1, "serialize.fromint32");
  size_t len, i;
  const char *str = luaL_checklstring(L, 2, &len);
  lua_Integer pos = luaL_checkinteger(L, 3);
  int64_t *d = s->data;
  if (s->dtype != TH_LONG) return luaL_error(L, "serialize.fromint32: LongStorage expected");
  if (pos < 1 || (size_t)(pos - 1) > len || (len - (size_t)(pos - 1)) / 4 < (size_t)s->size)
    return luaL_error(L, "serialize.fromint32: range out of bounds");
  for (i = 0; i < (size_t)s->size; i++) {
    int32_t v;
    memcpy(&v, str + pos - 1 + 4 * i, 4);
    d[i] = v;
  }
  return 0;
}

/* S.toint32(storage) -> string of 4-byte integers | nil, index of the first value out of range */
static int sz_toint32(lua_State *L) {
  th_storage *s = th_lua_checkstorage(L, 1, "serialize.toint32");
  const int64_t *d = s->data;
  luaL_Buffer b;
  int64_t i;
  if (s->dtype != TH_LONG) return luaL_error(L, "serialize.toint32: LongStorage expected");
  luaL_buffinit(L, &b);
  for (i = 0; i < s->size; i++) {
    int32_t v = (int32_t)d[i];
    if (v != d[i]) {
      lua_pushnil(L);
      lua_pushinteger(L, i + 1);
      return 2;
    }
    luaL_addlstring(&b, (const char *)&v, 4);
  }
  luaL_pushresult(&b);
  return 1;
}

/* element i of an integer storage as int64 / stores v (within the type's range) */
#define GETI_(c, D) case D(TH_DTF_ENUM): return (int64_t)((const D(TH_DTF_CTYPE) *)s->data)[i];
#define SETI_(c, D) case D(TH_DTF_ENUM): ((D(TH_DTF_CTYPE) *)s->data)[i] = (D(TH_DTF_CTYPE))v; break;
static int64_t get_int(const th_storage *s, int64_t i) {
  switch (s->dtype) {
    TH_DTYPES(GETI_, ~)
    default: return 0;
  }
}
static void set_int(th_storage *s, int64_t i, int64_t v) {
  switch (s->dtype) {
    TH_DTYPES(SETI_, ~)
    default: break;
  }
}

/* byte and char storages are written raw in ascii files, as Torch7 does */
static int raw_in_ascii(th_dtype dt) { return th_dtype_size[dt] == 1 && !TH_IS_FLOATING(dt); }

/* S.asciiformat(storage) -> the elements as Torch7's ascii files write them:
   separated by one space, doubles %.17g, floats and halves %.9g, integers
   %d, no newline */
static int sz_asciiformat(lua_State *L) {
  th_storage *s = th_lua_checkstorage(L, 1, "serialize.asciiformat");
  luaL_Buffer b;
  int64_t i;
  if (raw_in_ascii(s->dtype)) return luaL_error(L, "serialize.asciiformat: byte and char storages are written raw");
  luaL_buffinit(L, &b);
  for (i = 0; i < s->size; i++) {
    char *p = luaL_prepbuffsize(&b, 40);
    int k;
    if (s->dtype == TH_DOUBLE) k = snprintf(p, 40, "%s%.17g", i ? " " : "", ((double *)s->data)[i]);
    else if (s->dtype == TH_FLOAT) k = snprintf(p, 40, "%s%.9g", i ? " " : "", (double)((float *)s->data)[i]);
    else if (s->dtype == TH_HALF)  /* Torch7: the float, %.9g */
      k = snprintf(p, 40, "%s%.9g", i ? " " : "", (double)th_half_to_float(((uint16_t *)s->data)[i]));
    else k = snprintf(p, 40, "%s%lld", i ? " " : "", (long long)get_int(s, i));
    luaL_addsize(&b, (size_t)k);
  }
  luaL_pushresult(&b);
  return 1;
}

static int is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* S.asciiparse(storage, str, pos) -> position after the last number |
   nil, position (1-based) of the first bad or missing number.
   Whitespace before each number is skipped, as fscanf does; an integer
   outside the storage type's range is a bad number. */
static int sz_asciiparse(lua_State *L) {
  th_storage *s = th_lua_checkstorage(L, 1, "serialize.asciiparse");
  size_t len;
  const char *str = luaL_checklstring(L, 2, &len);  /* Lua strings end in '\0' */
  lua_Integer pos = luaL_checkinteger(L, 3);
  const char *p, *end = str + len;
  int64_t i;
  if (raw_in_ascii(s->dtype)) return luaL_error(L, "serialize.asciiparse: byte and char storages are read raw");
  if (pos < 1 || (size_t)(pos - 1) > len) return luaL_error(L, "serialize.asciiparse: position out of range");
  p = str + pos - 1;
  for (i = 0; i < s->size; i++) {
    char *q;
    while (p < end && is_space(*p)) p++;
    if (p >= end) break;
    errno = 0;
    if (s->dtype == TH_DOUBLE) ((double *)s->data)[i] = strtod(p, &q);
    else if (s->dtype == TH_FLOAT) ((float *)s->data)[i] = strtof(p, &q);
    else if (s->dtype == TH_HALF) ((uint16_t *)s->data)[i] = th_float_to_half(strtof(p, &q));
    else {
      long long v = strtoll(p, &q, 10);
      /* a number the type does not hold is a bad number, not a wrapped one */
      if (errno == ERANGE || v < th_dtype_lo[s->dtype] || v > th_dtype_hi[s->dtype]) q = (char *)p;
      else set_int(s, i, v);
    }
    if (q == p || q > end || (q < end && !is_space(*q))) break;
    p = q;
  }
  if (i < s->size) {
    lua_pushnil(L);
    lua_pushinteger(L, (lua_Integer)(p - str) + 1);
    return 2;
  }
  lua_pushinteger(L, (lua_Integer)(p - str) + 1);
  return 1;
}

static int readlongs(lua_State *L, int arg, int64_t *v, int *n) {
  lua_Integer i, len = luaL_len(L, arg);
  if (len > TH_MAXDIM) return 0;
  for (i = 1; i <= len; i++) {
    int isint;
    lua_geti(L, arg, i);
    v[i - 1] = (int64_t)lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    if (!isint) return 0;
  }
  *n = (int)len;
  return 1;
}

static int fail(lua_State *L, const char *msg) {
  lua_pushnil(L);
  lua_pushstring(L, msg);
  return 2;
}

/* S.tensor(dtype, storage|nil, offset (1-based), sizes, strides) -> tensor |
   nil, message. The view must lie inside the storage: files are not trusted. */
static int sz_tensor(lua_State *L) {
  th_dtype dt = (th_dtype)luaL_checkinteger(L, 1);
  th_storage *s = NULL;
  lua_Integer offset = luaL_checkinteger(L, 3);
  int64_t size[TH_MAXDIM], stride[TH_MAXDIM], last = 0, numel = 1;
  int n = 0, m = 0, d;
  char buf[300], sz[128];
  th_tensor *t;
  if (dt < 0 || dt >= TH_NDTYPES) return luaL_error(L, "serialize.tensor: bad dtype");
  if (!lua_isnil(L, 2)) s = th_lua_checkstorage(L, 2, "serialize.tensor");
  luaL_checktype(L, 4, LUA_TTABLE);
  luaL_checktype(L, 5, LUA_TTABLE);
  if (!readlongs(L, 4, size, &n) || !readlongs(L, 5, stride, &m) || n != m)
    return fail(L, "bad tensor sizes or strides");
  th_error_sizes(sz, sizeof sz, n, size);
  for (d = 0; d < n; d++) {
    if (size[d] < 0) return fail(L, "negative tensor size");
    if (stride[d] < 0) {
      snprintf(buf, sizeof buf, "negative stride %lld in a %s tensor is not supported", (long long)stride[d], sz);
      return fail(L, buf);
    }
    if (size[d] == 0) numel = 0;
    else if (numel > 0 && numel > INT64_MAX / size[d]) return fail(L, "tensor size overflows");
    else numel *= size[d];
  }
  if (n == 0) numel = 0;
  if (s != NULL && s->dtype != dt) {
    snprintf(buf, sizeof buf, "a %s tensor's storage is a %s", th_lua_tensor_mt[dt], th_lua_storage_mt[s->dtype]);
    return fail(L, buf);
  }
  if (offset < 1) {
    snprintf(buf, sizeof buf, "tensor storage offset %lld (1-based) is not positive", (long long)offset);
    return fail(L, buf);
  }
  if (s == NULL && numel > 0) {
    snprintf(buf, sizeof buf, "a %s tensor has no storage", sz);
    return fail(L, buf);
  }
  if (s != NULL && numel > 0) {
    last = offset - 1;
    for (d = 0; d < n; d++) {
      if (stride[d] > 0 && size[d] - 1 > (INT64_MAX - last) / stride[d]) return fail(L, "tensor extent overflows");
      last += (size[d] - 1) * stride[d];
    }
    if (last >= s->size) {
      /* last may be INT64_MAX: the 1-based element is printed unsigned */
      snprintf(buf, sizeof buf, "a %s tensor at offset %lld with strides reaching element %llu lies outside its storage of %lld elements",
               sz, (long long)offset, (unsigned long long)last + 1u, (long long)s->size);
      return fail(L, buf);
    }
  } else if (s != NULL && offset - 1 > s->size) {
    snprintf(buf, sizeof buf, "tensor storage offset %lld is past the end of its storage of %lld elements",
             (long long)offset, (long long)s->size);
    return fail(L, buf);
  }
  t = th_lua_newtensor(L, dt);
  if (th_tensor_set(t, s, s != NULL ? offset - 1 : 0, n, size, stride) != TH_OK) return fail(L, th_error_msg());
  return 1;
}

static const luaL_Reg functions[] = {
    {"write", sz_write}, {"read", sz_read}, {"setbytes", sz_setbytes},
    {"fromint32", sz_fromint32}, {"toint32", sz_toint32}, {"asciiformat", sz_asciiformat},
    {"asciiparse", sz_asciiparse}, {"tensor", sz_tensor}, {NULL, NULL}};

void th_lua_open_serialize(lua_State *L, int C) {
  C = lua_absindex(L, C);
  lua_newtable(L);
  luaL_setfuncs(L, functions, 0);
  lua_pushboolean(L, little_endian());
  lua_setfield(L, -2, "littleEndian");
  lua_setfield(L, C, "serialize");
}
