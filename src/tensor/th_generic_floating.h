/* th_generic_floating.h: includes TH_GENERIC_FILE for float and double (see th_generic.h) */
#include "th_generic.h"

#define TH_GEN TH_DT_FLOAT
#include "th_generic_inst.h"
#define TH_GEN TH_DT_DOUBLE
#include "th_generic_inst.h"

#undef TH_GENERIC_FILE
