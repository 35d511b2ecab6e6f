/* th_generic_floating.h: includes TH_GENERIC_FILE for float and double (see th_generic.h) */
#include "th_generic.h"

#define real float
#define accreal double
#define Real Float
#define TH_DTYPE TH_FLOAT
#define TH_REAL_IS_FLOAT 1
#include TH_GENERIC_FILE
#undef TH_REAL_IS_FLOAT
#undef real
#undef accreal
#undef Real
#undef TH_DTYPE

#define real double
#define accreal double
#define Real Double
#define TH_DTYPE TH_DOUBLE
#define TH_REAL_IS_DOUBLE 1
#include TH_GENERIC_FILE
#undef TH_REAL_IS_DOUBLE
#undef real
#undef accreal
#undef Real
#undef TH_DTYPE

#undef TH_GENERIC_FILE
