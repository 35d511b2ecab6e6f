/*
** th_dtype.h: the element types of storages and tensors.
** The enum is closed: 'th_dtype_name' and 'th_dtype_size' are checked
** against TH_NDTYPES at compile time, so a new type cannot be added
** without its name and size.
*/
#ifndef TH_DTYPE_H
#define TH_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
  TH_BYTE = 0,   /* uint8_t: masks */
  TH_LONG,       /* int64_t: indices */
  TH_FLOAT,      /* float */
  TH_DOUBLE,     /* double */
  TH_NDTYPES
} th_dtype;

/* "Byte", "Long", "Float", "Double": the prefix of torch.<X>Tensor */
extern const char *const th_dtype_name[TH_NDTYPES];
extern const size_t th_dtype_size[TH_NDTYPES];

#define TH_IS_FLOATING(dt) ((dt) == TH_FLOAT || (dt) == TH_DOUBLE)

#endif
