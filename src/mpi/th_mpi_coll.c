/*
** th_mpi_coll.c: collectives on tensors, blocking and not: allreduce,
** broadcast, reducescatter, allgather (and their i- forms returning an
** mpi.Request with wait/test).
** Every call first makes an 'op' userdata that owns what MPI works on: a
** contiguous view of each tensor (a reference to its storage, so the memory
** outlives anything the script does meanwhile), or a contiguous copy when
** the tensor is not contiguous, copied back into the tensor when the call
** completes; and the counts arrays of the v-collectives. An error raised
** at any point leaves only the userdata, whose __gc releases it all. An op
** still in flight at __gc is waited for first: MPI owns its buffers until
** then.
** Blocks of reducescatter and allgather: rank r's block of n elements is
** [floor(r*n/R), floor((r+1)*n/R)) unless a counts table says otherwise.
*/
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <lauxlib.h>
#include "th_mpi.h"
#include "../lua/th_lua.h"

#define REQUEST_MT "mpi.Request"

typedef struct mpi_op {
  MPI_Request req;
  int active;       /* a nonblocking call in flight */
  int copyback;     /* buf[0] copies the tensor in user value 1: written back when done */
  th_tensor buf[2];
  int *counts, *displs;
  const char *name;
} mpi_op;

static void release(mpi_op *op) {
  th_tensor_clear(&op->buf[0]);
  th_tensor_clear(&op->buf[1]);
  free(op->counts);
  free(op->displs);
  op->counts = op->displs = NULL;
  op->copyback = 0;
}

static mpi_op *newop(lua_State *L, const char *name) {
  mpi_op *op = lua_newuserdatauv(L, sizeof *op, 1);
  memset(op, 0, sizeof *op);
  op->req = MPI_REQUEST_NULL;
  th_tensor_init(&op->buf[0], TH_FLOAT);
  th_tensor_init(&op->buf[1], TH_FLOAT);
  op->name = name;
  luaL_setmetatable(L, REQUEST_MT);
  return op;
}

static MPI_Datatype mpitype(lua_State *L, const th_tensor *t, int arg, const char *fname) {
  switch (t->dtype) {
    case TH_BYTE: return MPI_UINT8_T;
    case TH_CHAR: return MPI_INT8_T;
    case TH_SHORT: return MPI_INT16_T;
    case TH_INT: return MPI_INT32_T;
    case TH_LONG: return MPI_INT64_T;
    case TH_FLOAT: return MPI_FLOAT;
    case TH_DOUBLE: return MPI_DOUBLE;
    default:
      th_lua_argerror(L, arg, fname, "a Byte, Char, Short, Int, Long, Float or Double tensor expected, got %s",
                      th_lua_typename(L, arg));
      return MPI_DATATYPE_NULL;
  }
}

static MPI_Op mpiop(lua_State *L, int arg, const char *fname) {
  static const char *const names[] = {"sum", "max", "min", "prod"};
  static const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
  const char *name = luaL_optstring(L, arg, "sum");
  size_t i;
  for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(name, names[i]) == 0) return ops[i];
  th_lua_argerror(L, arg, fname, "'sum', 'max', 'min' or 'prod' expected, got '%s'", name);
  return MPI_OP_NULL;
}

static int count_of(lua_State *L, int64_t n, const char *fname) {
  if (n > INT_MAX) luaL_error(L, "%s: %I elements, MPI counts stop at %d", fname, (lua_Integer)n, INT_MAX);
  return (int)n;
}

/* buf[slot] := contiguous form of the tensor at arg; a copy (written back
   at the end when slot 0) when the tensor is not contiguous */
static void *stage(lua_State *L, mpi_op *op, int opidx, int slot, int arg, const char *fname) {
  th_tensor *t = th_lua_checktensor(L, arg, fname);
  th_tensor_clear(&op->buf[slot]);
  th_tensor_init(&op->buf[slot], t->dtype);  /* the copy is of t's type */
  if (th_tensor_numel(t) == 0 || th_tensor_is_contiguous(t)) {
    th_tensor_set_tensor(&op->buf[slot], t);
  } else {
    th_lua_check(L, th_tensor_contiguous(&op->buf[slot], t), fname);
    if (slot == 0) {
      lua_pushvalue(L, arg);
      lua_setiuservalue(L, opidx, 1);
      op->copyback = 1;
    }
  }
  return th_tensor_data(&op->buf[slot]);
}

static void finish(lua_State *L, mpi_op *op, int opidx) {
  op->active = 0;
  if (op->copyback) {
    th_tensor *t;
    lua_getiuservalue(L, opidx, 1);
    t = th_lua_checktensor(L, -1, op->name);
    th_lua_check(L, th_tensor_copy(t, &op->buf[0]), op->name);
    lua_pop(L, 1);
  }
  release(op);
}

/* counts and displacements of the blocks of 'total' elements: from the
   table at arg, or the even split */
static void blocks(lua_State *L, mpi_op *op, int arg, int64_t total, const char *fname) {
  int R = th_mpi_size(), r;
  int64_t sum = 0;
  op->counts = malloc(sizeof(int) * (size_t)R);
  op->displs = malloc(sizeof(int) * (size_t)R);
  if (!op->counts || !op->displs) luaL_error(L, "%s: out of memory", fname);
  if (!lua_isnoneornil(L, arg) && !lua_istable(L, arg))
    th_lua_argerror(L, arg, fname, "a table of counts (one per rank) expected, got %s", th_lua_typename(L, arg));
  count_of(L, total, fname);
  for (r = 0; r < R; r++) {
    int64_t c;
    if (lua_istable(L, arg)) {
      lua_geti(L, arg, r + 1);
      if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0)
        th_lua_argerror(L, arg, fname, "counts[%d] should be an integer >= 0, got %s", r + 1,
                        luaL_typename(L, -1));
      c = lua_tointeger(L, -1);
      lua_pop(L, 1);
    } else {
      c = (int64_t)(r + 1) * total / R - (int64_t)r * total / R;
    }
    op->displs[r] = (int)sum;
    op->counts[r] = count_of(L, c, fname);
    sum += c;
    if (sum > total) break;
  }
  if (sum != total)
    th_lua_argerror(L, arg, fname, "counts add up to %lld, the tensor holds %lld elements",
                    (long long)sum, (long long)total);
}

static void same_type(lua_State *L, int a, int b, const char *fname) {
  th_tensor *x = th_lua_checktensor(L, a, fname), *y = th_lua_checktensor(L, b, fname);
  if (x->dtype != y->dtype)
    th_lua_argerror(L, b, fname, "%s expected (as argument #%d), got %s", th_lua_typename(L, a), a,
                    th_lua_typename(L, b));
}

/* --- the collectives; 'nb' selects the nonblocking form --- */

static int allreduce(lua_State *L, int nb) {
  const char *fname = nb ? "mpi.iallreduce" : "mpi.allreduce";
  th_tensor *t;
  MPI_Datatype dt;
  MPI_Op o;
  mpi_op *op;
  void *p;
  int n, opidx;
  lua_settop(L, 2);  /* the op userdata goes above the arguments */
  th_mpi_need(L, fname);
  t = th_lua_checktensor(L, 1, fname);
  dt = mpitype(L, t, 1, fname);
  o = mpiop(L, 2, fname);
  n = count_of(L, th_tensor_numel(t), fname);
  op = newop(L, fname);
  opidx = lua_gettop(L);
  p = stage(L, op, opidx, 0, 1, fname);
  if (nb) {
    th_mpi_check(L, MPI_Iallreduce(MPI_IN_PLACE, p, n, dt, o, MPI_COMM_WORLD, &op->req), fname);
    op->active = 1;
    return 1;
  }
  th_mpi_check(L, MPI_Allreduce(MPI_IN_PLACE, p, n, dt, o, MPI_COMM_WORLD), fname);
  finish(L, op, opidx);
  lua_pushvalue(L, 1);
  return 1;
}

static int broadcast(lua_State *L, int nb) {
  const char *fname = nb ? "mpi.ibroadcast" : "mpi.broadcast";
  th_tensor *t;
  MPI_Datatype dt;
  mpi_op *op;
  lua_Integer root;
  void *p;
  int n, opidx;
  lua_settop(L, 2);  /* the op userdata goes above the arguments */
  th_mpi_need(L, fname);
  t = th_lua_checktensor(L, 1, fname);
  dt = mpitype(L, t, 1, fname);
  root = luaL_optinteger(L, 2, 0);
  if (root < 0 || root >= th_mpi_size())
    th_lua_argerror(L, 2, fname, "root rank in 0..%d expected, got %lld", th_mpi_size() - 1, (long long)root);
  n = count_of(L, th_tensor_numel(t), fname);
  op = newop(L, fname);
  opidx = lua_gettop(L);
  p = stage(L, op, opidx, 0, 1, fname);
  if (nb) {
    th_mpi_check(L, MPI_Ibcast(p, n, dt, (int)root, MPI_COMM_WORLD, &op->req), fname);
    op->active = 1;
    return 1;
  }
  th_mpi_check(L, MPI_Bcast(p, n, dt, (int)root, MPI_COMM_WORLD), fname);
  finish(L, op, opidx);
  lua_pushvalue(L, 1);
  return 1;
}

/* reducescatter(recv, send [, op [, counts]]): recv := this rank's block of
   the reduction of every rank's send */
static int reducescatter(lua_State *L, int nb) {
  const char *fname = nb ? "mpi.ireducescatter" : "mpi.reducescatter";
  th_tensor *recv, *send;
  MPI_Datatype dt;
  MPI_Op o;
  mpi_op *op;
  void *pr, *ps;
  int opidx;
  lua_settop(L, 4);  /* the op userdata goes above the arguments */
  th_mpi_need(L, fname);
  recv = th_lua_checktensor(L, 1, fname);
  send = th_lua_checktensor(L, 2, fname);
  same_type(L, 1, 2, fname);
  dt = mpitype(L, recv, 1, fname);
  o = mpiop(L, 3, fname);
  op = newop(L, fname);
  opidx = lua_gettop(L);
  blocks(L, op, 4, th_tensor_numel(send), fname);
  if (th_tensor_numel(recv) != op->counts[th_mpi_rank()])
    th_lua_argerror(L, 1, fname, "rank %d's block holds %d elements, recv has %lld", th_mpi_rank(),
                    op->counts[th_mpi_rank()], (long long)th_tensor_numel(recv));
  if (recv->storage && recv->storage == send->storage)
    th_lua_argerror(L, 1, fname, "recv and send share a storage (MPI forbids aliased buffers)");
  pr = stage(L, op, opidx, 0, 1, fname);
  ps = stage(L, op, opidx, 1, 2, fname);
  if (nb) {
    th_mpi_check(L, MPI_Ireduce_scatter(ps, pr, op->counts, dt, o, MPI_COMM_WORLD, &op->req), fname);
    op->active = 1;
    return 1;
  }
  th_mpi_check(L, MPI_Reduce_scatter(ps, pr, op->counts, dt, o, MPI_COMM_WORLD), fname);
  finish(L, op, opidx);
  lua_pushvalue(L, 1);
  return 1;
}

/* allgather(recv [, send [, counts]]): recv := every rank's block, each
   from that rank's send; without send, from that rank's block of recv */
static int allgather(lua_State *L, int nb) {
  const char *fname = nb ? "mpi.iallgather" : "mpi.allgather";
  th_tensor *recv;
  MPI_Datatype dt;
  mpi_op *op;
  void *pr, *ps = MPI_IN_PLACE;
  int opidx, me = th_mpi_rank(), inplace = lua_isnoneornil(L, 2);
  lua_settop(L, 3);  /* the op userdata goes above the arguments */
  th_mpi_need(L, fname);
  recv = th_lua_checktensor(L, 1, fname);
  dt = mpitype(L, recv, 1, fname);
  op = newop(L, fname);
  opidx = lua_gettop(L);
  blocks(L, op, 3, th_tensor_numel(recv), fname);
  if (!inplace) {
    th_tensor *send = th_lua_checktensor(L, 2, fname);
    same_type(L, 1, 2, fname);
    if (th_tensor_numel(send) != op->counts[me])
      th_lua_argerror(L, 2, fname, "rank %d's block holds %d elements, send has %lld", me, op->counts[me],
                      (long long)th_tensor_numel(send));
    if (send->storage && recv->storage == send->storage)
      th_lua_argerror(L, 2, fname, "recv and send share a storage (leave send out to gather in place)");
    ps = stage(L, op, opidx, 1, 2, fname);
  }
  pr = stage(L, op, opidx, 0, 1, fname);
  if (nb) {
    th_mpi_check(L, MPI_Iallgatherv(ps, inplace ? 0 : op->counts[me], dt, pr, op->counts, op->displs, dt,
                                    MPI_COMM_WORLD, &op->req), fname);
    op->active = 1;
    return 1;
  }
  th_mpi_check(L, MPI_Allgatherv(ps, inplace ? 0 : op->counts[me], dt, pr, op->counts, op->displs, dt,
                                 MPI_COMM_WORLD), fname);
  finish(L, op, opidx);
  lua_pushvalue(L, 1);
  return 1;
}

static int l_allreduce(lua_State *L) { return allreduce(L, 0); }
static int l_iallreduce(lua_State *L) { return allreduce(L, 1); }
static int l_broadcast(lua_State *L) { return broadcast(L, 0); }
static int l_ibroadcast(lua_State *L) { return broadcast(L, 1); }
static int l_reducescatter(lua_State *L) { return reducescatter(L, 0); }
static int l_ireducescatter(lua_State *L) { return reducescatter(L, 1); }
static int l_allgather(lua_State *L) { return allgather(L, 0); }
static int l_iallgather(lua_State *L) { return allgather(L, 1); }

/* --- requests --- */

static mpi_op *checkreq(lua_State *L, const char *fname) {
  mpi_op *op = luaL_testudata(L, 1, REQUEST_MT);
  if (!op) th_lua_argerror(L, 1, fname, "mpi.Request expected, got %s", th_lua_typename(L, 1));
  return op;
}

/* req:wait(): blocks until the call completed (no-op when it has) */
static int l_wait(lua_State *L) {
  mpi_op *op = checkreq(L, "wait");
  if (op->active) {
    int rc;
    th_mpi_need(L, op->name);
    rc = MPI_Wait(&op->req, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      op->active = 0;
      release(op);
      th_mpi_check(L, rc, op->name);
    }
    finish(L, op, 1);
  }
  return 0;
}

/* req:test(): true when the call completed (and drives MPI's progress) */
static int l_test(lua_State *L) {
  mpi_op *op = checkreq(L, "test");
  if (op->active) {
    int flag = 0, rc;
    th_mpi_need(L, op->name);
    rc = MPI_Test(&op->req, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      op->active = 0;
      release(op);
      th_mpi_check(L, rc, op->name);
    }
    if (flag) finish(L, op, 1);
  }
  lua_pushboolean(L, !op->active);
  return 1;
}

static int l_gc(lua_State *L) {
  mpi_op *op = luaL_checkudata(L, 1, REQUEST_MT);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (op->active && !finalized) MPI_Wait(&op->req, MPI_STATUS_IGNORE);
  op->active = 0;
  release(op);
  return 0;
}

static int l_tostring(lua_State *L) {
  mpi_op *op = luaL_checkudata(L, 1, REQUEST_MT);
  lua_pushfstring(L, "mpi.Request (%s, %s)", op->name, op->active ? "in flight" : "done");
  return 1;
}

void th_mpi_open_coll(lua_State *L) {
  static const luaL_Reg funcs[] = {
    {"allreduce", l_allreduce}, {"iallreduce", l_iallreduce}, {"broadcast", l_broadcast},
    {"ibroadcast", l_ibroadcast}, {"reducescatter", l_reducescatter}, {"ireducescatter", l_ireducescatter},
    {"allgather", l_allgather}, {"iallgather", l_iallgather}, {NULL, NULL}
  };
  static const luaL_Reg methods[] = {{"wait", l_wait}, {"test", l_test}, {NULL, NULL}};
  luaL_setfuncs(L, funcs, 0);
  if (luaL_newmetatable(L, REQUEST_MT)) {
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, l_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, l_gc);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, l_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, REQUEST_MT);
    lua_setfield(L, -2, "__name");
    lua_pushliteral(L, REQUEST_MT);
    lua_setfield(L, -2, "__typename");  /* torch.type(req) */
  }
  lua_pop(L, 1);
}
