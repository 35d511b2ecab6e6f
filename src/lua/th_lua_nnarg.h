/*
** th_lua_nnarg.h: argument handling shared by the nn binding files.
** Every nn binding takes the module first; its class name prefixes error
** messages ("nn.Abs:updateOutput: input must be a tensor, got nil"), so
** the user reads the class and method they called, never a file of ours.
*/
#ifndef TH_LUA_NNARG_H
#define TH_LUA_NNARG_H

#include "th_lua.h"

typedef struct th_lua_nn_fname {
  char s[160];
} th_lua_nn_fname;

/* "<class of arg 1>:<method>" into f; returns f->s */
const char *th_lua_nn_fn(lua_State *L, th_lua_nn_fname *f, const char *method);
/* the tensor at idx (not freed, inside its storage: th_lua_nn_checkextent),
   else an error naming fn and 'what' */
th_tensor *th_lua_nn_tensor(lua_State *L, int idx, const char *fn, const char *what);
/* t, after checking that its elements lie inside its storage (a view whose
   storage shrank under it, th_tensor_check_extent), else an error naming
   fn and 'what': "nn.ReLU:updateOutput: input of size 4x5 extends past
   its storage (needs 20 elements, storage has 0)". The call's own result
   (the output of updateOutput, the gradInput of updateGradInput) is not
   checked: its kernel resizes it first, which grows the storage to fit. */
th_tensor *th_lua_nn_checkextent(lua_State *L, th_tensor *t, const char *fn, const char *what);
/* as th_lua_nn_tensor; NULL when the argument is nil or absent */
th_tensor *th_lua_nn_opttensor(lua_State *L, int idx, const char *fn, const char *what);
/* a number at idx; 'def' when nil or absent */
double th_lua_nn_num(lua_State *L, int idx, double def, const char *fn, const char *what);
/* an integer at idx (a float with an integer value is accepted); 'def' when nil */
int64_t th_lua_nn_int(lua_State *L, int idx, int64_t def, const char *fn, const char *what);
/* an integer field k of the module at index 1; 'def' when nil */
int64_t th_lua_nn_intfield(lua_State *L, const char *k, int64_t def, const char *fn);
/* a number field k of the module at index 1; 'def' when nil */
double th_lua_nn_numfield(lua_State *L, const char *k, double def, const char *fn);
/* a boolean field k of the module at index 1 (nil: def) */
int th_lua_nn_boolfield(lua_State *L, const char *k, int def);
/* pushes torch._C.nn (the table at C, field "nn"), creating it when absent */
void th_lua_nn_push(lua_State *L, int C);

/* the nn binding files of Torch7's wider module set; th_lua_open_nn calls them */
void th_lua_open_nn_simple(lua_State *L, int C);       /* simple layers and activations */
void th_lua_open_nn_products(lua_State *L, int C);     /* linear family, distances */
void th_lua_open_nn_temporal(lua_State *L, int C);     /* temporal and spatial convolutions */
void th_lua_open_nn_spatial(lua_State *L, int C);      /* spatial pooling, sampling, padding */
void th_lua_open_nn_volumetric(lua_State *L, int C);   /* volumetric modules */
void th_lua_open_nn_crit(lua_State *L, int C);         /* criterions */

#endif
