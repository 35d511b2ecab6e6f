/* generic/copy.c: copy into and fill a 'real' tensor (included by th_copy.c) */

static void TH_R(copy_from_Byte)(th_tensor *dst, const th_tensor *src) {
  TH_APPLY2(real, d, dst, const uint8_t, s, src, *d = (real)*s;);
}
static void TH_R(copy_from_Long)(th_tensor *dst, const th_tensor *src) {
  TH_APPLY2(real, d, dst, const int64_t, s, src, *d = (real)*s;);
}
static void TH_R(copy_from_Float)(th_tensor *dst, const th_tensor *src) {
  TH_APPLY2(real, d, dst, const float, s, src, *d = (real)*s;);
}
static void TH_R(copy_from_Double)(th_tensor *dst, const th_tensor *src) {
  TH_APPLY2(real, d, dst, const double, s, src, *d = (real)*s;);
}

static int TH_R(copy)(th_tensor *dst, const th_tensor *src) {
  switch (src->dtype) {
    case TH_BYTE: TH_R(copy_from_Byte)(dst, src); break;
    case TH_LONG: TH_R(copy_from_Long)(dst, src); break;
    case TH_FLOAT: TH_R(copy_from_Float)(dst, src); break;
    default: TH_R(copy_from_Double)(dst, src); break;
  }
  return TH_OK;
}

static int TH_R(fill)(th_tensor *t, double value) {
  real v = (real)value;
  TH_APPLY1(real, p, t, *p = v;);
  return TH_OK;
}
