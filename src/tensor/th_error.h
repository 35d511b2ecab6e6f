/*
** th_error.h: how the C core reports failure.
** Core functions never raise and never abort: they return TH_OK or
** TH_ERR after writing a message with 'th_error_set'. Only src/lua turns
** that message into a Lua error. The message buffer is per thread.
*/
#ifndef TH_ERROR_H
#define TH_ERROR_H

#include <stdint.h>

#define TH_OK 0
#define TH_ERR (-1)

#if defined(__GNUC__)
#define TH_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TH_PRINTF(a, b)
#endif

/* sets the message; always returns TH_ERR so callers can 'return th_error_set(...)' */
int th_error_set(const char *fmt, ...) TH_PRINTF(1, 2);
const char *th_error_msg(void);

/* writes sizes as "2x3x4" (or "empty") into buf; returns buf */
char *th_error_sizes(char *buf, size_t len, int ndim, const int64_t *size);

#endif
