/*
** th_error.c: the per-thread error message of the C core.
*/
#include <stdarg.h>
#include <stdio.h>
#include "th_error.h"

static _Thread_local char errbuf[512];

int th_error_set(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, sizeof errbuf, fmt, ap);
  va_end(ap);
  return TH_ERR;
}

const char *th_error_msg(void) {
  return errbuf[0] ? errbuf : "unknown error";
}

char *th_error_sizes(char *buf, size_t len, int ndim, const int64_t *size) {
  size_t n = 0;
  int d;
  if (ndim == 0) {
    snprintf(buf, len, "empty");
    return buf;
  }
  buf[0] = '\0';
  for (d = 0; d < ndim && n < len; d++) {
    int w = snprintf(buf + n, len - n, d ? "x%lld" : "%lld", (long long)size[d]);
    if (w < 0) break;
    n += (size_t)w;
  }
  return buf;
}
