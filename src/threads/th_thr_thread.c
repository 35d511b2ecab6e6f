/*
** th_thr_thread.c: threads.Thread(code), an OS thread running 'code' in
** a Lua state of its own (standard libraries open, the creator's
** package.path and package.cpath, so that require 'torch' finds this
** engine). An error in the code is printed with its traceback on stderr
** (there is no caller to raise it to) and makes t:free() return false.
** t:free() waits for the thread and returns whether its code succeeded;
** a thread never freed is waited for when its handle is collected.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lualib.h>
#include "th_thr.h"

#define THREAD_MT "threads.Thread"

typedef struct thr_thread {
  pthread_t tid;
  int running;  /* started and not yet joined */
  int ok;       /* the code ran without error */
  _Atomic int finished;  /* the code returned (the thread is ending) */
  char *code, *path, *cpath;
  size_t codelen;
} thr_thread;

typedef struct thread_box {
  thr_thread *t;
} thread_box;

static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  luaL_traceback(L, L, msg ? msg : "(error object is not a string)", 1);
  return 1;
}

static void setpath(lua_State *L, const char *field, const char *value) {
  if (value == NULL) return;
  lua_getglobal(L, "package");
  lua_pushstring(L, value);
  lua_setfield(L, -2, field);
  lua_pop(L, 1);
}

static void *thread_main(void *arg) {
  thr_thread *t = arg;
  lua_State *L = luaL_newstate();
  if (L == NULL) {
    fprintf(stderr, "threads: cannot create a Lua state for a thread (out of memory)\n");
    t->finished = 1;
    return NULL;
  }
  luaL_openlibs(L);
  setpath(L, "path", t->path);
  setpath(L, "cpath", t->cpath);
  lua_pushcfunction(L, traceback);
  if (luaL_loadbuffer(L, t->code, t->codelen, "=threads.Thread") != LUA_OK || lua_pcall(L, 0, 0, 1) != LUA_OK) {
    fprintf(stderr, "threads: error in a thread: %s\n", lua_tostring(L, -1));
    fflush(stderr);
  } else {
    t->ok = 1;
  }
  lua_close(L);
  t->finished = 1;
  return NULL;
}

static void thread_join(thr_thread *t) {
  if (t->running) {
    pthread_join(t->tid, NULL);
    t->running = 0;
  }
}

static void thread_delete(thr_thread *t) {
  free(t->code);
  free(t->path);
  free(t->cpath);
  free(t);
}

static char *dupfield(lua_State *L, const char *field) {
  char *s = NULL;
  lua_getglobal(L, "package");
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, field);
    if (lua_isstring(L, -1)) s = strdup(lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return s;
}

/* threads.Thread(code) */
static int t_new(lua_State *L) {
  size_t len;
  const char *code;
  thr_thread *t;
  thread_box *b;
  int rc;
  if (lua_type(L, 1) != LUA_TSTRING)
    return luaL_error(L, "threads.Thread: Lua code (string) expected, got %s", luaL_typename(L, 1));
  code = lua_tolstring(L, 1, &len);
  b = lua_newuserdatauv(L, sizeof *b, 0);
  b->t = NULL;
  luaL_setmetatable(L, THREAD_MT);
  t = calloc(1, sizeof *t);
  if (t == NULL || (t->code = malloc(len + 1)) == NULL) {
    free(t);
    return luaL_error(L, "threads.Thread: out of memory");
  }
  memcpy(t->code, code, len + 1);
  t->codelen = len;
  t->path = dupfield(L, "path");
  t->cpath = dupfield(L, "cpath");
  rc = pthread_create(&t->tid, NULL, thread_main, t);
  if (rc != 0) {
    thread_delete(t);
    return luaL_error(L, "threads.Thread: cannot start a thread (error %d)", rc);
  }
  t->running = 1;
  b->t = t;
  return 1;
}

static thread_box *checkthread(lua_State *L, const char *fname) {
  thread_box *b = luaL_testudata(L, 1, THREAD_MT);
  if (b == NULL) luaL_error(L, "%s: threads.Thread expected, got %s", fname, luaL_typename(L, 1));
  return b;
}

/* t:free(): waits for the thread; true when its code succeeded */
static int t_free(lua_State *L) {
  thread_box *b = checkthread(L, "threads.Thread:free");
  int ok;
  if (b->t == NULL) return luaL_error(L, "threads.Thread:free: the thread was freed already");
  thread_join(b->t);
  ok = b->t->ok;
  thread_delete(b->t);
  b->t = NULL;
  lua_pushboolean(L, ok);
  return 1;
}

/* t:alive(): whether the thread's code is still running (a pool checks
   that its threads did not die while it waits for their results) */
static int t_alive(lua_State *L) {
  thread_box *b = checkthread(L, "threads.Thread:alive");
  lua_pushboolean(L, b->t != NULL && !b->t->finished);
  return 1;
}

static int t_gc(lua_State *L) {
  thread_box *b = checkthread(L, "threads.Thread:__gc");
  if (b->t != NULL) {
    thread_join(b->t);
    thread_delete(b->t);
    b->t = NULL;
  }
  return 0;
}

static int t_tostring(lua_State *L) {
  thread_box *b = checkthread(L, "threads.Thread:__tostring");
  lua_pushstring(L, b->t == NULL ? "threads.Thread (freed)" : "threads.Thread");
  return 1;
}

void thr_open_thread(lua_State *L, int core) {
  static const luaL_Reg methods[] = {
    {"free", t_free}, {"alive", t_alive}, {"__gc", t_gc}, {"__tostring", t_tostring}, {NULL, NULL}
  };
  luaL_newmetatable(L, THREAD_MT);
  luaL_setfuncs(L, methods, 0);
  lua_pushvalue(L, -1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_pushcfunction(L, t_new);
  lua_setfield(L, core, "Thread");
}
