/*
** th_thr.h: the C side of the threads package (lua/threads).
** Objects that several Lua states (one per OS thread) use at once --
** mutexes, condition variables, message queues, and the tensors and
** storages in flight between states -- live outside every Lua heap, in
** one process-wide registry that hands out integer ids and counts
** references. A Lua handle holds one reference; a reference "in flight"
** (shared, not yet adopted by the receiving state) is counted apart, so
** that an id can only be adopted as often as it was shared: a stale or
** made-up id is a Lua error, never a use after free.
*/
#ifndef TH_THR_H
#define TH_THR_H

#include <stdint.h>
#include <lua.h>
#include <lauxlib.h>

typedef enum {
  THR_MUTEX = 1, THR_COND, THR_QUEUE, THR_TENSOR, THR_STORAGE, THR_NKINDS
} thr_kind;

typedef struct thr_obj {
  thr_kind kind;
  int64_t id;
  int refs;       /* handles and in-flight references (registry lock) */
  int transfers;  /* of which in flight (registry lock) */
  struct thr_obj *next;  /* registry bucket chain */
} thr_obj;

/* --- registry (th_thr_registry.c) --- */
/* gives o a new id with one reference (in flight when inflight != 0) */
int64_t thr_register(thr_obj *o, thr_kind kind, int inflight);
/* a new reference to live object 'id' of 'kind' (0: any); NULL if none */
thr_obj *thr_lookup(int64_t id, thr_kind kind);
void thr_retain(thr_obj *o);
/* drops one reference; destroys (thr_destroy) at zero */
void thr_release(thr_obj *o);
/* one more reference, in flight: returns the id that carries it */
int64_t thr_share(thr_obj *o);
/* takes over an in-flight reference of 'id': NULL if none is in flight */
thr_obj *thr_adopt(int64_t id);
/* live objects of a kind (0: all); in-flight references (all kinds) */
int64_t thr_count(thr_kind kind);
int64_t thr_count_inflight(void);
/* kind-specific destruction, called once the last reference is gone */
void thr_destroy(thr_obj *o);
void thr_mutex_destroy(thr_obj *o);
void thr_cond_destroy(thr_obj *o);
void thr_queue_destroy(thr_obj *o);
void thr_share_destroy(thr_obj *o);

/* --- Lua handles (th_thr_lua.c) --- */
typedef struct thr_handle {
  thr_obj *o;  /* NULL once freed */
} thr_handle;
extern const char *const thr_mt[THR_NKINDS];  /* metatable names by kind */
/* pushes a handle that owns one reference of o */
void thr_pushhandle(lua_State *L, thr_obj *o);
/* the live object of a handle of 'kind' at idx, or a Lua error naming fname */
thr_obj *thr_checkobj(lua_State *L, int idx, thr_kind kind, const char *fname);
/* registers the common handle methods (id, free, __gc, __share, __tostring)
   and 'methods' into a new metatable for 'kind'; leaves nothing on the stack */
void thr_newmetatable(lua_State *L, thr_kind kind, const luaL_Reg *methods);

/* --- per-file openers: each adds its functions to table 'core' --- */
void thr_open_mutex(lua_State *L, int core);
void thr_open_cond(lua_State *L, int core);
void thr_open_queue(lua_State *L, int core);
void thr_open_thread(lua_State *L, int core);
void thr_open_share(lua_State *L, int core);

/* the mutex of a Mutex object: Condition:wait releases and retakes it */
typedef struct thr_mutex thr_mutex;
thr_mutex *thr_mutex_of(thr_obj *o);
/* whether the calling thread holds m (Condition:wait requires it) */
int thr_mutex_owned(thr_mutex *m);
/* the pthread mutex and the owner bookkeeping around a wait */
void *thr_mutex_raw(thr_mutex *m);
void thr_mutex_before_wait(thr_mutex *m);
void thr_mutex_after_wait(thr_mutex *m);

int luaopen_threads_core(lua_State *L);

#endif
