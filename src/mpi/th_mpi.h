/*
** th_mpi.h: the Open MPI binding (build/mpi/core.so, loaded by
** require 'mpi'). Kept out of torch/core.so so that the engine builds and
** runs without MPI. Tensors come from torch/core.so's exported binding
** helpers (th_lua_checktensor, th_tensor_copy, ...): this module is linked
** against that file (DT_NEEDED core.so, rpath $ORIGIN/../torch), so the
** dynamic loader binds it to the copy Lua already loaded, whatever its
** RTLD_LOCAL: one allocator, one set of metatables.
** Ranks are 0-based, as MPI's. Only the main thread calls MPI
** (MPI_THREAD_FUNNELED): th_pool's helper threads compute, never communicate.
*/
#ifndef TH_MPI_H
#define TH_MPI_H

#include <mpi.h>
#include <lua.h>

/* raises "fname: <MPI's error string>" unless rc == MPI_SUCCESS */
void th_mpi_check(lua_State *L, int rc, const char *fname);
/* raises "fname: call mpi.init() first" when MPI is not running */
void th_mpi_need(lua_State *L, const char *fname);
/* rank and size in MPI_COMM_WORLD (valid after th_mpi_need) */
int th_mpi_rank(void);
int th_mpi_size(void);

/* registers the collectives and the request metatable into the table on top */
void th_mpi_open_coll(lua_State *L);

#endif
