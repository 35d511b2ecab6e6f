/*
** th_lua_nn_simple.c: bindings in torch._C.nn for simple layers and activations
** (Torch7's wider module set; kernels in src/nn/th_nn_simple.h). Arguments as
** in th_lua_nnarg.h: the module first, its class prefixing every message.
** The pointwise maps are a th_lua_nn_pwfamily: one closure pair per map
** ("Abs_updateOutput", "HardTanh_updateGradInput", ...); PReLU and RReLU
** are rows of the table 'rows'.
*/
#include <stdio.h>
#include <string.h>
#include "th_lua_nnarg.h"
#include "../nn/th_nn_simple.h"

/* --- the pointwise maps: a th_lua_nn_pwfamily ------------------------------ */

static int pw_check(int op, const double *p, int inplace) {
  return th_nn_pw_check((th_nn_pw)op, p, inplace);
}

static int pw_forward(int op, const double *p, th_tensor *input, th_tensor *output, int inplace) {
  return th_nn_pw_update_output((th_nn_pw)op, p, input, output, inplace);
}

static int pw_backward(int op, const double *p, const th_tensor *input, th_tensor *gradOutput,
                       th_tensor *gradInput, const th_tensor *output, int inplace) {
  return th_nn_pw_update_grad_input((th_nn_pw)op, p, input, gradOutput, gradInput, output, inplace);
}

static const th_lua_nn_pwfamily maps = {"pointwise map", th_nn_pw_name, TH_NN_NPW,
                                        pw_check,        pw_forward,    pw_backward};

/* --- adapters of the rows below: the kernel called with a[stack index] --- */

static int prelu_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_prelu_update_output(a[2].t, a[3].t, a[4].t, a[5].i);
}

static int prelu_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_prelu_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, a[6].i);
}

static int prelu_acc(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_prelu_acc_grad_params(a[2].t, a[3].t, a[4].t, a[5].i, a[6].n);
}

/* slopes come from the default generator (torch.manualSeed reproduces them) */
static int rrelu_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_rrelu_update_output(a[2].t, a[3].t, a[4].t, a[5].n, a[6].n, a[7].b, a[8].b,
                                   th_random_default());
}

static int rrelu_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_rrelu_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, a[6].n, a[7].n, a[8].b,
                                       a[9].b);
}

static const th_lua_nn_binding rows[] = {
    {"PReLU_updateOutput", "updateOutput", "input output weight nOutputPlane:i=0", 3, prelu_out},
    {"PReLU_updateGradInput", "updateGradInput",
     "input gradOutput gradInput weight nOutputPlane:i=0", 4, prelu_gin},
    {"PReLU_accGradParameters", "accGradParameters",
     "input gradOutput gradWeight nOutputPlane:i=0 scale:n=1", 0, prelu_acc},
    {"RReLU_updateOutput", "updateOutput",
     "input output noise lower:n=0.125 upper:n=0.3333333333333333 train:b inplace:b", 3, rrelu_out},
    {"RReLU_updateGradInput", "updateGradInput",
     "input gradOutput gradInput noise lower:n=0.125 upper:n=0.3333333333333333 train:b inplace:b",
     4, rrelu_gin},
    {NULL, NULL, NULL, 0, NULL}};

void th_lua_open_nn_simple(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  th_lua_nn_register(L, rows);
  th_lua_nn_register_pw(L, &maps, "pw_check");
  lua_pop(L, 1);
}
