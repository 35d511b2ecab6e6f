/*
** th_lua_random.c: bindings for the random generator.
** Every function takes Torch7's optional leading torch.Generator; without
** one the process-wide generator is used. Scalars: torch.seed,
** manualSeed, initialSeed, random, uniform, normal, exponential, cauchy,
** logNormal, geometric, bernoulli, get/setRNGState, Generator; tensors:
** rand, randn, randperm and the in-place fills t:uniform() etc.
** Parameters are checked here, so a bad one is "bad argument #k to ...".
*/
#include <math.h>
#include <string.h>
#include "th_lua.h"
#include "../tensor/th_error.h"
#include "../tensor/th_random.h"

static const char GEN_MT[] = "torch.Generator";

/* the generator at *arg when there is one (then *arg moves past it) */
static th_generator *optgen(lua_State *L, int *arg) {
  th_generator *g = luaL_testudata(L, *arg, GEN_MT);
  if (g != NULL) {
    (*arg)++;
    return g;
  }
  return th_random_default();
}

static double optnum(lua_State *L, int arg, double def, const char *fname, const char *what) {
  int isnum;
  double v;
  if (lua_isnoneornil(L, arg)) return def;
  v = (double)lua_tonumberx(L, arg, &isnum);
  if (!isnum) th_lua_argerror(L, arg, fname, "%s must be a number, got %s", what, th_lua_typename(L, arg));
  return v;
}

static double checknum(lua_State *L, int arg, const char *fname, const char *what) {
  if (lua_isnoneornil(L, arg)) th_lua_argerror(L, arg, fname, "%s (a number) expected, got no value", what);
  return optnum(L, arg, 0, fname, what);
}

/* a location (bound, mean, median) must be finite: inf or NaN made every
   draw inf or NaN */
static double check_finite(lua_State *L, int arg, double v, const char *fname, const char *what) {
  if (!isfinite(v)) th_lua_argerror(L, arg, fname, "%s must be finite, got %g", what, v);
  return v;
}

/* a scale (rate, sigma) must be finite and > 0: a negative rate gave
   negative "exponential" draws */
static double positive(lua_State *L, int arg, double v, const char *fname, const char *what) {
  if (!(v > 0)) th_lua_argerror(L, arg, fname, "%s must be strictly positive, got %g", what, v);
  if (isinf(v)) th_lua_argerror(L, arg, fname, "%s must be finite, got %g", what, v);
  return v;
}

/* raises "bad argument" with the core's message when a check failed */
static void argcheck(lua_State *L, int rc, int arg, const char *fname) {
  if (rc != TH_OK) th_lua_argerror(L, arg, fname, "%s", th_error_msg());
}

/* --- generators and seeds ---------------------------------------------- */

/* these take nothing after the optional generator: anything else there is
   a mistake (a misspelt generator), not an argument to drop silently; nil
   passes (an optional generator left unset) */
static void noextra(lua_State *L, int arg, const char *fname) {
  const char *want;
  for (; arg <= lua_gettop(L); arg++) {
    if (lua_isnil(L, arg)) continue;
    want = arg > 1 ? "nothing more" : strcmp(fname, "Generator") == 0 ? "no argument" : "nothing or a torch.Generator";
    th_lua_argerror(L, arg, fname, "%s expected, got %s", want, th_lua_typename(L, arg));
  }
}

static int r_generator(lua_State *L) {
  th_generator *g;
  noextra(L, 1, "Generator");
  g = lua_newuserdatauv(L, sizeof *g, 0);
  memset(g, 0, sizeof *g);
  luaL_setmetatable(L, GEN_MT);
  th_random_seed(g);
  return 1;
}

static int r_seed(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  noextra(L, arg, "seed");
  lua_pushinteger(L, (lua_Integer)th_random_seed(g));
  return 1;
}

/* a seed with a fraction is truncated, as Torch7's luaL_checklong did: nn's
   test suite seeds with 1e5 * torch.tic() */
static int r_manualseed(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  th_random_manual_seed(g, (uint64_t)th_lua_checksize(L, arg, "manualSeed", "seed"));
  return 0;
}

static int r_initialseed(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  noextra(L, arg, "initialSeed");
  lua_pushinteger(L, (lua_Integer)th_random_initial_seed(g));
  return 1;
}

static int r_getstate(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  th_tensor *t;
  noextra(L, arg, "getRNGState");
  t = th_lua_newtensor(L, TH_BYTE);
  th_lua_check(L, th_tensor_resize1d(t, TH_GENERATOR_BYTES), "getRNGState");
  memcpy(th_tensor_data(t), g, TH_GENERATOR_BYTES);
  return 1;
}

static int r_setstate(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  th_tensor *t = th_lua_checktensortype(L, arg, TH_BYTE, "setRNGState");
  if (!th_tensor_is_contiguous(t) || t->ndim != 1)
    th_lua_argerror(L, arg, "setRNGState", "a contiguous 1D torch.ByteTensor from getRNGState expected");
  argcheck(L, th_random_set_state(g, th_tensor_data(t), (size_t)th_tensor_numel(t)), arg, "setRNGState");
  lua_settop(L, arg);
  return 1;
}

/* --- scalar draws ------------------------------------------------------- */

/* torch.random([gen,] [a [, b]]): the raw 32-bit draw, 1..b or a..b */
static int r_random(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  if (lua_isnoneornil(L, arg)) {
    lua_pushinteger(L, (lua_Integer)th_random_random(g));
  } else if (lua_isnoneornil(L, arg + 1)) {
    int64_t b = th_lua_checkint(L, arg, "random", "upper bound");
    if (b <= 0) th_lua_argerror(L, arg, "random", "upper bound must be strictly positive, got %lld", (long long)b);
    lua_pushinteger(L, th_random_range(g, 1, b));
  } else {
    int64_t a = th_lua_checkint(L, arg, "random", "lower bound");
    int64_t b = th_lua_checkint(L, arg + 1, "random", "upper bound");
    argcheck(L, th_random_check_range(a, b), arg + 1, "random");
    lua_pushinteger(L, th_random_range(g, a, b));
  }
  return 1;
}

static int r_uniform(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  double a = check_finite(L, arg, optnum(L, arg, 0, "uniform", "lower bound"), "uniform", "lower bound");
  double b = check_finite(L, arg + 1, optnum(L, arg + 1, 1, "uniform", "upper bound"), "uniform", "upper bound");
  lua_pushnumber(L, th_random_uniform(g, a, b));
  return 1;
}

static int r_normal(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  double mean = check_finite(L, arg, optnum(L, arg, 0, "normal", "mean"), "normal", "mean");
  double stdv = positive(L, arg + 1, optnum(L, arg + 1, 1, "normal", "standard deviation"), "normal",
                         "standard deviation");
  argcheck(L, th_random_check_normal(stdv), arg + 1, "normal");
  lua_pushnumber(L, th_random_normal(g, mean, stdv));
  return 1;
}

static int r_exponential(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  lua_pushnumber(L, th_random_exponential(g, positive(L, arg, checknum(L, arg, "exponential", "lambda"), "exponential",
                                                      "lambda")));
  return 1;
}

static int r_cauchy(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  double median = check_finite(L, arg, checknum(L, arg, "cauchy", "median"), "cauchy", "median");
  double sigma = positive(L, arg + 1, checknum(L, arg + 1, "cauchy", "sigma"), "cauchy", "sigma");
  lua_pushnumber(L, th_random_cauchy(g, median, sigma));
  return 1;
}

static int r_lognormal(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  double mean = check_finite(L, arg, checknum(L, arg, "logNormal", "mean"), "logNormal", "mean");
  double stdv = positive(L, arg + 1, checknum(L, arg + 1, "logNormal", "standard deviation"), "logNormal",
                         "standard deviation");
  argcheck(L, th_random_check_normal(stdv), arg + 1, "logNormal");
  lua_pushnumber(L, th_random_lognormal(g, mean, stdv));
  return 1;
}

static int r_geometric(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  double p = checknum(L, arg, "geometric", "probability");
  argcheck(L, th_random_check_geometric(p), arg, "geometric");
  lua_pushinteger(L, th_random_geometric(g, p));
  return 1;
}

static int r_bernoulli(lua_State *L) {
  int arg = 1;
  th_generator *g = optgen(L, &arg);
  double p = optnum(L, arg, 0.5, "bernoulli", "probability");
  argcheck(L, th_random_check_prob(p), arg, "bernoulli");
  lua_pushinteger(L, th_random_bernoulli(g, p));
  return 1;
}

/* --- new tensors: C.rand(defaultDtype, [res,] [gen,] sizes...) ---------- */

/* Torch7's optional leading result tensor: the one at index 1 (then *arg
   is 2) or a new one of dtype 'dt' pushed on top (then *arg is 1, so that
   argument numbers in errors are the user's); *res gets its stack index */
static th_tensor *result_arg(lua_State *L, th_dtype dt, int floating, const char *fname, int *arg, int *res) {
  th_tensor *t = th_lua_totensor(L, 1);
  if (t != NULL) {
    t = floating ? th_lua_checkfloating(L, 1, fname) : th_lua_checktensor(L, 1, fname);
    *arg = 2;
    *res = 1;
    return t;
  }
  t = th_lua_newtensor(L, dt);
  *arg = 1;
  *res = lua_gettop(L);
  return t;
}

static int new_random(lua_State *L, int normal) {
  const char *fname = normal ? "randn" : "rand";
  th_dtype dt = (th_dtype)luaL_checkinteger(L, 1);
  int64_t size[TH_MAXDIM];
  th_generator *g;
  th_tensor *t;
  int arg, res, n;
  lua_remove(L, 1);  /* user arguments now start at 1 */
  t = result_arg(L, dt, 1, fname, &arg, &res);
  g = optgen(L, &arg);
  n = th_lua_checksizes(L, arg, size, fname);
  {
    /* nothing may follow the sizes but the result result_arg pushed */
    int next = (th_lua_tostoragebox(L, arg) != NULL || lua_istable(L, arg)) ? arg + 1 : arg + n;
    if (next != res && !lua_isnoneornil(L, next))
      th_lua_argerror(L, next, fname, "size must be a number, got %s", th_lua_typename(L, next));
  }
  th_lua_check(L, th_tensor_resize(t, n, size), fname);
  th_lua_check(L, normal ? th_tensor_normal(t, g, 0, 1) : th_tensor_uniform(t, g, 0, 1), fname);
  lua_pushvalue(L, res);
  return 1;
}

static int r_rand(lua_State *L) { return new_random(L, 0); }
static int r_randn(lua_State *L) { return new_random(L, 1); }

static int r_randperm(lua_State *L) {
  th_dtype dt = (th_dtype)luaL_checkinteger(L, 1);
  th_generator *g;
  th_tensor *t;
  int arg, res;
  int64_t n;
  lua_remove(L, 1);
  t = result_arg(L, dt, 0, "randperm", &arg, &res);
  g = optgen(L, &arg);
  n = th_lua_checkint(L, arg, "randperm", "n");
  if (n <= 0) th_lua_argerror(L, arg, "randperm", "n must be strictly positive, got %lld", (long long)n);
  th_lua_check(L, th_tensor_randperm(t, g, n), "randperm");
  lua_pushvalue(L, res);
  return 1;
}

/* --- in-place tensor fills: t:uniform([gen,] a, b) etc. ----------------- */

static int t_uniform(lua_State *L) {
  th_tensor *t = th_lua_checkfloating(L, 1, "uniform");
  int arg = 2;
  th_generator *g = optgen(L, &arg);
  double a = check_finite(L, arg, optnum(L, arg, 0, "uniform", "lower bound"), "uniform", "lower bound");
  double b = check_finite(L, arg + 1, optnum(L, arg + 1, 1, "uniform", "upper bound"), "uniform", "upper bound");
  th_lua_check(L, th_tensor_uniform(t, g, a, b), "uniform");
  lua_settop(L, 1);
  return 1;
}

static int t_normal(lua_State *L) {
  th_tensor *t = th_lua_checkfloating(L, 1, "normal");
  int arg = 2;
  th_generator *g = optgen(L, &arg);
  double mean = check_finite(L, arg, optnum(L, arg, 0, "normal", "mean"), "normal", "mean");
  double stdv = positive(L, arg + 1, optnum(L, arg + 1, 1, "normal", "standard deviation"), "normal",
                         "standard deviation");
  argcheck(L, th_random_check_normal(stdv), arg + 1, "normal");
  th_lua_check(L, th_tensor_normal(t, g, mean, stdv), "normal");
  lua_settop(L, 1);
  return 1;
}

static int t_exponential(lua_State *L) {
  th_tensor *t = th_lua_checkfloating(L, 1, "exponential");
  int arg = 2;
  th_generator *g = optgen(L, &arg);
  double lambda = positive(L, arg, checknum(L, arg, "exponential", "lambda"), "exponential", "lambda");
  th_lua_check(L, th_tensor_exponential(t, g, lambda), "exponential");
  lua_settop(L, 1);
  return 1;
}

static int t_cauchy(lua_State *L) {
  th_tensor *t = th_lua_checkfloating(L, 1, "cauchy");
  int arg = 2;
  th_generator *g = optgen(L, &arg);
  double median = check_finite(L, arg, checknum(L, arg, "cauchy", "median"), "cauchy", "median");
  double sigma = positive(L, arg + 1, checknum(L, arg + 1, "cauchy", "sigma"), "cauchy", "sigma");
  th_lua_check(L, th_tensor_cauchy(t, g, median, sigma), "cauchy");
  lua_settop(L, 1);
  return 1;
}

static int t_lognormal(lua_State *L) {
  th_tensor *t = th_lua_checkfloating(L, 1, "logNormal");
  int arg = 2;
  th_generator *g = optgen(L, &arg);
  double mean = check_finite(L, arg, checknum(L, arg, "logNormal", "mean"), "logNormal", "mean");
  double stdv = positive(L, arg + 1, checknum(L, arg + 1, "logNormal", "standard deviation"), "logNormal",
                         "standard deviation");
  argcheck(L, th_random_check_normal(stdv), arg + 1, "logNormal");
  th_lua_check(L, th_tensor_lognormal(t, g, mean, stdv), "logNormal");
  lua_settop(L, 1);
  return 1;
}

static int t_geometric(lua_State *L) {
  th_tensor *t = th_lua_checktensor(L, 1, "geometric");
  int arg = 2;
  th_generator *g = optgen(L, &arg);
  double p = checknum(L, arg, "geometric", "probability");
  argcheck(L, th_random_check_geometric(p), arg, "geometric");
  th_lua_check(L, th_tensor_geometric(t, g, p), "geometric");
  lua_settop(L, 1);
  return 1;
}

/* t:bernoulli([gen,] [p]) with p a number (default 0.5) or a tensor of probabilities */
static int t_bernoulli(lua_State *L) {
  th_tensor *t = th_lua_checktensor(L, 1, "bernoulli");
  int arg = 2;
  th_generator *g = optgen(L, &arg);
  th_tensor *p = th_lua_totensor(L, arg);
  if (p != NULL) {
    p = th_lua_checkfloating(L, arg, "bernoulli");
    if (th_tensor_numel(p) != th_tensor_numel(t)) {
      char a[128], b[128];
      th_lua_argerror(L, arg, "bernoulli", "%s probabilities for a %s tensor",
                      th_tensor_sizestr(p, b, sizeof b), th_tensor_sizestr(t, a, sizeof a));
    }
    th_lua_check(L, th_tensor_bernoulli_tensor(t, g, p), "bernoulli");
  } else {
    double q = optnum(L, arg, 0.5, "bernoulli", "probability");
    argcheck(L, th_random_check_prob(q), arg, "bernoulli");
    th_lua_check(L, th_tensor_bernoulli(t, g, q), "bernoulli");
  }
  lua_settop(L, 1);
  return 1;
}

/* t:random([gen,] [a [, b]]) */
static int t_random(lua_State *L) {
  th_tensor *t = th_lua_checktensor(L, 1, "random");
  int arg = 2;
  th_generator *g = optgen(L, &arg);
  if (lua_isnoneornil(L, arg)) {
    th_lua_check(L, th_tensor_random(t, g), "random");
  } else if (lua_isnoneornil(L, arg + 1)) {
    int64_t b = th_lua_checkint(L, arg, "random", "upper bound");
    if (b <= 0) th_lua_argerror(L, arg, "random", "upper bound must be strictly positive, got %lld", (long long)b);
    th_lua_check(L, th_tensor_random_range(t, g, 1, b), "random");
  } else {
    int64_t a = th_lua_checkint(L, arg, "random", "lower bound");
    int64_t b = th_lua_checkint(L, arg + 1, "random", "upper bound");
    argcheck(L, th_random_check_range(a, b), arg + 1, "random");
    th_lua_check(L, th_tensor_random_range(t, g, a, b), "random");
  }
  lua_settop(L, 1);
  return 1;
}

static int gen_tostring(lua_State *L) {
  th_generator *g = luaL_checkudata(L, 1, GEN_MT);
  lua_pushfstring(L, "torch.Generator (initial seed %I)", (lua_Integer)g->initial_seed);
  return 1;
}

static const luaL_Reg functions[] = {
    {"Generator", r_generator}, {"seed", r_seed}, {"manualSeed", r_manualseed},
    {"initialSeed", r_initialseed}, {"getRNGState", r_getstate}, {"setRNGState", r_setstate},
    {"random", r_random}, {"uniform", r_uniform}, {"normal", r_normal},
    {"exponential", r_exponential}, {"cauchy", r_cauchy}, {"logNormal", r_lognormal},
    {"geometric", r_geometric}, {"bernoulli", r_bernoulli}, {"rand", r_rand},
    {"randn", r_randn}, {"randperm", r_randperm}, {NULL, NULL}};

static const luaL_Reg tensor_methods[] = {
    {"uniform", t_uniform}, {"normal", t_normal}, {"exponential", t_exponential},
    {"cauchy", t_cauchy}, {"logNormal", t_lognormal}, {"geometric", t_geometric},
    {"bernoulli", t_bernoulli}, {"random", t_random}, {NULL, NULL}};

void th_lua_open_random(lua_State *L, int C, int methods) {
  C = lua_absindex(L, C);
  methods = lua_absindex(L, methods);
  luaL_newmetatable(L, GEN_MT);
  lua_pushstring(L, GEN_MT);
  lua_setfield(L, -2, "__typename");
  lua_pushcfunction(L, gen_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  lua_newtable(L);  /* C.random: the scalar functions, exported by lua/torch/random.lua */
  luaL_setfuncs(L, functions, 0);
  lua_setfield(L, C, "random");
  th_lua_register(L, methods, tensor_methods);
}
