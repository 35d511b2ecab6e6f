/*
** th_thr_mutex.c: threads.Mutex. A plain pthread mutex plus the identity
** of the thread holding it, so that misuse is a Lua error instead of
** undefined behaviour or a hang: locking twice from one thread (a
** self-deadlock), unlocking a mutex this thread does not hold. Each
** thread also lists the mutexes it holds: after a job fails, the worker
** unlocks what the job left locked (core.unlockall), so that an error
** never leaves the other threads waiting forever. A held mutex keeps a
** reference of its own: freeing every handle while it is locked cannot
** destroy it under its holder.
*/
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "th_thr.h"

struct thr_mutex {
  thr_obj h;
  pthread_mutex_t m;
  void *_Atomic owner;  /* the holder's token (NULL: free) */
};

#define MAXHELD 64
static _Thread_local char token;  /* its address names the calling thread */
static _Thread_local thr_mutex *held[MAXHELD];
static _Thread_local int nheld;

thr_mutex *thr_mutex_of(thr_obj *o) { return (thr_mutex *)o; }
int thr_mutex_owned(thr_mutex *m) { return m->owner == &token; }
void *thr_mutex_raw(thr_mutex *m) { return &m->m; }
void thr_mutex_before_wait(thr_mutex *m) { m->owner = NULL; }
void thr_mutex_after_wait(thr_mutex *m) { m->owner = &token; }

void thr_mutex_destroy(thr_obj *o) {
  thr_mutex *m = (thr_mutex *)o;
  pthread_mutex_destroy(&m->m);
  free(m);
}

static thr_mutex *mutex_new(void) {
  thr_mutex *m = malloc(sizeof *m);
  if (m == NULL) return NULL;
  if (pthread_mutex_init(&m->m, NULL) != 0) {
    free(m);
    return NULL;
  }
  m->owner = NULL;
  thr_register(&m->h, THR_MUTEX, 0);
  return m;
}

/* threads.Mutex([id]): a new mutex, or another handle on mutex 'id' */
static int m_new(lua_State *L) {
  thr_obj *o;
  if (lua_isnoneornil(L, 1)) {
    thr_mutex *m = mutex_new();
    if (m == NULL) return luaL_error(L, "threads.Mutex: out of memory");
    o = &m->h;
  } else {
    lua_Integer id;
    if (!lua_isinteger(L, 1))
      return luaL_error(L, "threads.Mutex: a mutex id (integer, from mutex:id()) expected, got %s",
                        luaL_typename(L, 1));
    id = lua_tointeger(L, 1);
    o = thr_lookup((int64_t)id, THR_MUTEX);
    if (o == NULL) return luaL_error(L, "threads.Mutex: no live mutex has id %d", (int)id);
  }
  thr_pushhandle(L, o);
  return 1;
}

static int m_lock(lua_State *L) {
  thr_mutex *m = (thr_mutex *)thr_checkobj(L, 1, THR_MUTEX, "threads.Mutex:lock");
  if (m->owner == &token)
    return luaL_error(L, "threads.Mutex:lock: this thread holds the mutex already (it would wait forever)");
  if (nheld == MAXHELD)
    return luaL_error(L, "threads.Mutex:lock: this thread holds %d mutexes already", MAXHELD);
  thr_retain(&m->h);
  pthread_mutex_lock(&m->m);
  m->owner = &token;
  held[nheld++] = m;
  return 0;
}

static void unlock(thr_mutex *m) {
  int i;
  for (i = nheld - 1; i >= 0; i--)
    if (held[i] == m) {
      held[i] = held[--nheld];
      break;
    }
  m->owner = NULL;
  pthread_mutex_unlock(&m->m);
  thr_release(&m->h);
}

static int m_unlock(lua_State *L) {
  thr_mutex *m = (thr_mutex *)thr_checkobj(L, 1, THR_MUTEX, "threads.Mutex:unlock");
  if (m->owner != &token)
    return luaL_error(L, "threads.Mutex:unlock: the mutex is not locked by this thread");
  unlock(m);
  return 0;
}

/* core.unlockall(): unlocks what this thread holds; returns how many */
static int c_unlockall(lua_State *L) {
  int n = nheld;
  while (nheld > 0) unlock(held[nheld - 1]);
  lua_pushinteger(L, n);
  return 1;
}

void thr_open_mutex(lua_State *L, int core) {
  static const luaL_Reg methods[] = {{"lock", m_lock}, {"unlock", m_unlock}, {NULL, NULL}};
  thr_newmetatable(L, THR_MUTEX, methods);
  lua_pushcfunction(L, m_new);
  lua_setfield(L, core, "Mutex");
  lua_pushcfunction(L, c_unlockall);
  lua_setfield(L, core, "unlockall");
}
