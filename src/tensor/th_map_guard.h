/*
** th_map_guard.h: the SIGBUS guard of shared file mappings.
** A shared mapping (Storage(filename, true)) reads and writes the file's
** pages; if the file is cut shorter while mapped (by this process or
** another), an access past its new end raises SIGBUS, which would end the
** process. The guard catches that signal for the registered mappings:
** it replaces the mapping from the faulting page to its end by zero pages
** (so the access completes and no later one faults), records the fault
** and calls the notify function, which the Lua layer uses to raise an
** error as soon as the running C call returns. Accesses outside every
** registered mapping keep their previous handler (by default: the crash).
*/
#ifndef TH_MAP_GUARD_H
#define TH_MAP_GUARD_H

#include <stddef.h>

/* at most this many shared mappings live at once */
#define TH_MAP_GUARD_SLOTS 4096

/* registers [data, data + bytes), mapped shared from 'filename';
   installs the handler on first use. TH_OK, or TH_ERR + th_error */
int th_map_guard_add(void *data, size_t bytes, const char *filename);
/* forgets the mapping at 'data' (before it is unmapped) */
void th_map_guard_remove(void *data);
/* 'owner' (opaque: the Lua layer's state) is told of faults in this mapping */
void th_map_guard_set_owner(void *data, void *owner);
/* fn(owner) runs inside the signal handler: it must be async-signal-safe */
void th_map_guard_set_notify(void (*fn)(void *owner));
/* the first fault of 'owner' not reported yet: sets th_error to its
   message and returns 1, else returns 0. Not for signal handlers. */
int th_map_guard_report(void *owner);

#endif
