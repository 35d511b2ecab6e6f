/*
** th_dtype.c: names, sizes and ranges of the element types, expanded from
** TH_DTYPES (th_dtype.h), so they cannot fall out of step with the enum.
*/
#include "th_dtype.h"

#define NAME_(N, E, T, SZ, FL, SG, LO, HI) #N
#define ENTRY_(c, D) D(c),
#define CHECK2_(N, E, T, SZ, FL, SG, LO, HI) \
  _Static_assert(sizeof(T) == SZ, "th_dtype.h: the size of " #N " is wrong");
#define CHECK_(c, D) D(CHECK2_)

const char *const th_dtype_name[TH_NDTYPES] = {TH_DTYPES(ENTRY_, NAME_)};
const size_t th_dtype_size[TH_NDTYPES] = {TH_DTYPES(ENTRY_, TH_DTF_SIZE)};
const int th_dtype_floating[TH_NDTYPES] = {TH_DTYPES(ENTRY_, TH_DTF_FLOATING)};
const int64_t th_dtype_lo[TH_NDTYPES] = {TH_DTYPES(ENTRY_, TH_DTF_LO)};
const int64_t th_dtype_hi[TH_NDTYPES] = {TH_DTYPES(ENTRY_, TH_DTF_HI)};

TH_DTYPES(CHECK_, ~)
