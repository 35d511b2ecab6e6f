/*
** th_thr_cond.c: threads.Condition, a pthread condition variable.
** wait(mutex [, seconds]) requires the calling thread to hold the mutex
** (an error otherwise, where pthreads would be undefined); with a timeout
** it returns false when the time ran out. As with any condition
** variable, a wait may return without a signal: callers loop on their
** predicate.
*/
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "th_thr.h"

typedef struct thr_cond {
  thr_obj h;
  pthread_cond_t c;
} thr_cond;

void thr_cond_destroy(thr_obj *o) {
  thr_cond *c = (thr_cond *)o;
  pthread_cond_destroy(&c->c);
  free(c);
}

/* threads.Condition([id]) */
static int c_new(lua_State *L) {
  thr_obj *o;
  if (lua_isnoneornil(L, 1)) {
    thr_cond *c = malloc(sizeof *c);
    if (c == NULL || pthread_cond_init(&c->c, NULL) != 0) {
      free(c);
      return luaL_error(L, "threads.Condition: out of memory");
    }
    thr_register(&c->h, THR_COND, 0);
    o = &c->h;
  } else {
    lua_Integer id;
    if (!lua_isinteger(L, 1))
      return luaL_error(L, "threads.Condition: a condition id (integer, from condition:id()) expected, got %s",
                        luaL_typename(L, 1));
    id = lua_tointeger(L, 1);
    o = thr_lookup((int64_t)id, THR_COND);
    if (o == NULL) return luaL_error(L, "threads.Condition: no live condition has id %d", (int)id);
  }
  thr_pushhandle(L, o);
  return 1;
}

static int c_wait(lua_State *L) {
  thr_cond *c = (thr_cond *)thr_checkobj(L, 1, THR_COND, "threads.Condition:wait");
  thr_mutex *m = thr_mutex_of(thr_checkobj(L, 2, THR_MUTEX, "threads.Condition:wait"));
  int rc;
  if (!thr_mutex_owned(m))
    return luaL_error(L, "threads.Condition:wait: lock the mutex first (it is not held by this thread)");
  thr_mutex_before_wait(m);
  if (lua_isnoneornil(L, 3)) {
    rc = pthread_cond_wait(&c->c, thr_mutex_raw(m));
  } else {
    double s = luaL_checknumber(L, 3);
    struct timespec ts;
    double whole;
    if (!(s >= 0)) s = 0;
    if (s > 1e9) s = 1e9;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)(modf(s, &whole) * 1e9);
    ts.tv_sec += (time_t)whole + ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    rc = pthread_cond_timedwait(&c->c, thr_mutex_raw(m), &ts);
  }
  thr_mutex_after_wait(m);
  lua_pushboolean(L, rc != ETIMEDOUT);
  return 1;
}

static int c_signal(lua_State *L) {
  thr_cond *c = (thr_cond *)thr_checkobj(L, 1, THR_COND, "threads.Condition:signal");
  pthread_cond_signal(&c->c);
  return 0;
}

static int c_broadcast(lua_State *L) {
  thr_cond *c = (thr_cond *)thr_checkobj(L, 1, THR_COND, "threads.Condition:broadcast");
  pthread_cond_broadcast(&c->c);
  return 0;
}

void thr_open_cond(lua_State *L, int core) {
  static const luaL_Reg methods[] = {
    {"wait", c_wait}, {"signal", c_signal}, {"broadcast", c_broadcast}, {NULL, NULL}
  };
  thr_newmetatable(L, THR_COND, methods);
  lua_pushcfunction(L, c_new);
  lua_setfield(L, core, "Condition");
}
