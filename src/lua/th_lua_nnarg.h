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
   else an error naming fn and 'what': "nn.Linear:updateOutput: input must
   be a tensor, got nil", "... input was freed by its dispose scope (keep it
   with ...)" (th_lua_freed) */
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
/* as th_lua_nn_num and th_lua_nn_int, without a default: nil is an error
   ("scale must be a number, got nil") */
double th_lua_nn_checknum(lua_State *L, int idx, const char *fn, const char *what);
int64_t th_lua_nn_checkint(lua_State *L, int idx, const char *fn, const char *what);
/* an integer field k of the module at index 1, nil an error */
int64_t th_lua_nn_checkintfield(lua_State *L, const char *k, const char *fn);
/* an integer field k of the module at index 1; 'def' when nil */
int64_t th_lua_nn_intfield(lua_State *L, const char *k, int64_t def, const char *fn);
/* a number field k of the module at index 1; 'def' when nil */
double th_lua_nn_numfield(lua_State *L, const char *k, double def, const char *fn);
/* the same, nil an error */
double th_lua_nn_checknumfield(lua_State *L, const char *k, const char *fn);
/* a boolean field k of the module at index 1 (nil: def) */
int th_lua_nn_boolfield(lua_State *L, const char *k, int def);

/* --- table-driven bindings ------------------------------------------------
   Most bindings have one shape: check the arguments, call one kernel, return
   the result. Each is a row of a th_lua_nn_binding table: its Lua name, the
   method that names it in messages, its arguments after the module as a spec
   string, what it returns, and an adapter that calls the kernel with the
   checked values (fields of the module it reads itself, with the helpers
   above). The spec is parsed once, at registration; every call checks the
   arguments in stack order with the helpers above, so a row gives the
   messages a hand-written binding gives. Spec: the arguments from stack
   index 2, separated by spaces, each one of
     name            a tensor            (th_lua_nn_tensor)
     name?           a tensor or nil     (th_lua_nn_opttensor: NULL)
     name:n  name:i  a number, an integer; nil an error (th_lua_nn_checknum, _checkint)
     name:n=D name:i=D   the same, D when nil (th_lua_nn_num, th_lua_nn_int)
     name:b          any value, read as a boolean (lua_toboolean)
   'name' is the argument's name in messages ("input must be a tensor").
   A row, with its adapter:
     {"linear_updateOutput", "updateOutput", "input output weight bias? addBuffer", 3,
      linear_out}
     static int linear_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
       return th_nn_linear_update_output(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t);
     } */
#define TH_LUA_NN_MAXARGS 16
typedef union th_lua_nn_val {
  th_tensor *t;
  double n;
  int64_t i;
  int b;
} th_lua_nn_val;
typedef struct th_lua_nn_call {
  lua_State *L;
  const char *fn;  /* "<class>:<method>", for messages */
  double ret[2];   /* the numbers a TH_LUA_NN_NUMBERS row returns */
} th_lua_nn_call;
/* a row's 'result': the argument at that stack index (the tensor the kernel
   wrote), 0 for nothing, or TH_LUA_NN_NUMBERS(k): the first k of c->ret */
#define TH_LUA_NN_NUMBERS(k) (-(k))
typedef struct th_lua_nn_binding {
  const char *name;    /* in torch._C.nn */
  const char *method;  /* names the call in messages; NULL: argument 2 does (a string:
                          "updateGradInput", "backward"), the spec's arguments follow it */
  const char *args;    /* the spec above */
  int result;          /* the stack index returned, 0, or TH_LUA_NN_NUMBERS(k) */
  /* calls the kernel with a[i], the argument at stack index i (i >= 2, 3);
     returns its status (TH_OK or an error, th_error.h) */
  int (*call)(th_lua_nn_call *c, const th_lua_nn_val *a);
} th_lua_nn_binding;
/* registers the rows of b, up to one with a NULL name, in the table on top
   of the stack; a malformed spec is an error here, at load */
void th_lua_nn_register(lua_State *L, const th_lua_nn_binding *b);

/* the bindings of one op of a family (criterions): registers
   <name>_updateOutput and <name>_updateGradInput in the table on top of the
   stack, fwd and bwd closed over the op (their upvalue 1) */
void th_lua_nn_register_op(lua_State *L, const char *name, int op, lua_CFunction fwd,
                           lua_CFunction bwd);

/* a family of pointwise maps with up to two parameters, one kernel per
   direction switching on the op (the activations, th_nn_layers.h; Torch7's
   wider set, th_nn_simple.h) */
typedef struct th_lua_nn_pwfamily {
  const char *kind;          /* names an unknown op: "unknown activation 'X'" */
  const char *const *names;  /* the op names, indexed by op */
  int n;
  int (*check)(int op, const double *p, int inplace);
  int (*forward)(int op, const double *p, th_tensor *input, th_tensor *output, int inplace);
  int (*backward)(int op, const double *p, const th_tensor *input, th_tensor *gradOutput,
                  th_tensor *gradInput, const th_tensor *output, int inplace);
} th_lua_nn_pwfamily;
/* registers, in the table on top of the stack, for every op of f
     <Op>_updateOutput(self, input, output, inplace, p1, p2)
     <Op>_updateGradInput(self, input|nil, gradOutput, gradInput, output|nil, inplace, p1, p2)
   and 'checkname'(self, name, inplace, p1, p2), the constructors' check of
   their parameters */
void th_lua_nn_register_pw(lua_State *L, const th_lua_nn_pwfamily *f, const char *checkname);

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
