/* generic/copy.c: copy into and fill a 'real' tensor (included by th_copy.c).
   One copy_from_<Type> per source type, expanded from TH_DTYPES. Values
   convert as C casts do, except that a floating value converts to an
   integer type through th_dtype_to_int64 (truncation, NaN -> 0, then the
   low bits): Torch7's cast was undefined there. Copies into Half are in
   th_copy.c (Half has no generic instance). */

#undef CONV_0
#undef CONV_1
#undef CONV_2
#undef COPY_FROM_
#undef COPY_CASE_
#define CONV_0(v) ((real)(v))
#if TH_REAL_FLOATING
#define CONV_1(v) ((real)(v))
#else
#define CONV_1(v) ((real)th_dtype_to_int64((double)(v)))
#endif
/* from Half: through float, then as from a floating type */
#define CONV_2(v) CONV_1(th_half_to_float(v))

#define COPY_FROM_(c, D)                                                          \
  static void TH_R(TH_CAT(copy_from, D(TH_DTF_NAME)))(th_tensor *dst, const th_tensor *src) { \
    TH_APPLY2(real, d, dst, const D(TH_DTF_CTYPE), s, src,                      \
              *d = TH_CAT(CONV, D(TH_DTF_FLOATING))(*s););                       \
  }
TH_DTYPES(COPY_FROM_, ~)

#define COPY_CASE_(c, D) \
  case D(TH_DTF_ENUM): TH_R(TH_CAT(copy_from, D(TH_DTF_NAME)))(dst, src); break;

static int TH_R(copy)(th_tensor *dst, const th_tensor *src) {
  switch (src->dtype) {
    TH_DTYPES(COPY_CASE_, ~)
    default: return th_error_set("copy: bad source dtype %d", (int)src->dtype);
  }
  return TH_OK;
}

static int TH_R(fill)(th_tensor *t, double value) {
  real v = CONV_1(value);
  TH_APPLY1(real, p, t, *p = v;);
  return TH_OK;
}
