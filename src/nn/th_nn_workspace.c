/*
** th_nn_workspace.c: where a kernel's workspace comes from.
** By default from the calling thread's shared scratch (th_scratch.h): the
** module's 'finput' / 'fgradInput' stay empty. Two cases keep the module's
** own buffer, as every module held it before the scratch: a buffer the
** memory planner placed in its arena (a view with a limit: optnet lays
** the workspaces of all layers out with the activations, so the arena is
** all the optimized net needs), and every buffer while the planner traces
** a net (th_nn_set_own_workspace), so that its traces see the workspaces
** as buffers to plan.
*/
#include "th_nn_internal.h"
#include "../tensor/th_scratch.h"

static __thread int own_workspace;

int th_nn_set_own_workspace(int on) {
  int old = own_workspace;
  own_workspace = on != 0;
  return old;
}

th_tensor *th_nn_workspace(th_tensor *field, th_tensor *ws) {
  if (!own_workspace && field->limit == 0) return ws;
  /* the module's buffer: given a storage first, so that the kernels'
     th_nn_workspace_take resizes it rather than viewing the scratch */
  /* (without one, the scratch serves: a zero-size storage could not be had) */
  if (field->storage == NULL && th_tensor_resize1d(field, 0) != TH_OK) return ws;
  return field;
}

int th_nn_workspace_take(th_tensor *t, int ndim, const int64_t *size) {
  if (t->storage != NULL && !th_scratch_is_view(t)) return th_tensor_resize(t, ndim, size);
  return th_scratch_take(t, ndim, size);
}

int th_nn_workspace_take1d(th_tensor *t, int64_t n) {
  return th_nn_workspace_take(t, 1, &n);
}
