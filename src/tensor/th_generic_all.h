/* th_generic_all.h: includes TH_GENERIC_FILE once per element type with
   kernels, every type but Half (see th_generic.h). '#include' cannot sit
   in a macro, so TH_DTYPES cannot drive this list: a type is one pair of
   lines here, and a missing pair fails to build (every dispatch names
   every instance). */
#include "th_generic.h"

#define TH_GEN TH_DT_BYTE
#include "th_generic_inst.h"
#define TH_GEN TH_DT_CHAR
#include "th_generic_inst.h"
#define TH_GEN TH_DT_SHORT
#include "th_generic_inst.h"
#define TH_GEN TH_DT_INT
#include "th_generic_inst.h"
#define TH_GEN TH_DT_LONG
#include "th_generic_inst.h"

#include "th_generic_floating.h"
