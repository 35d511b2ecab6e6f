/*
** th_dtype.c: names and sizes of the element types.
*/
#include <assert.h>
#include "th_dtype.h"

const char *const th_dtype_name[TH_NDTYPES] = {"Byte", "Long", "Float", "Double"};
const size_t th_dtype_size[TH_NDTYPES] = {1, 8, 4, 8};

_Static_assert(TH_NDTYPES == 4, "add the new type to th_dtype_name and th_dtype_size");
