/* th_generic_all.h: includes TH_GENERIC_FILE once per element type (see th_generic.h) */
#include "th_generic.h"

#define real uint8_t
#define accreal int64_t
#define Real Byte
#define TH_DTYPE TH_BYTE
#define TH_REAL_IS_BYTE 1
#include TH_GENERIC_FILE
#undef TH_REAL_IS_BYTE
#undef real
#undef accreal
#undef Real
#undef TH_DTYPE

#define real int64_t
#define accreal int64_t
#define Real Long
#define TH_DTYPE TH_LONG
#define TH_REAL_IS_LONG 1
#include TH_GENERIC_FILE
#undef TH_REAL_IS_LONG
#undef real
#undef accreal
#undef Real
#undef TH_DTYPE

#include "th_generic_floating.h"
