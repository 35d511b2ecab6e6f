/*
** th_thr_queue.c: the message queue between threads. A message is an
** integer tag, a byte string (a serialized value) and the shared
** references it carries (pointer + constructor name, the protocol of
** docs/threads.md), copied out of the sender's Lua heap. push waits while
** the queue holds 'limit' messages (0: no limit), pop while it is empty;
** after close both return at once (push refuses, pop drains then returns
** nothing). A queue freed with messages left releases the references
** of ours they carry (tensors, storages, mutexes...); a reference of
** another package cannot be released without its module and is reported.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <errno.h>
#include "th_thr.h"

typedef struct thr_ref {
  void *ptr;
  char *ctor;
} thr_ref;

typedef struct thr_msg {
  lua_Integer tag;
  char *bytes;
  size_t len;
  int nrefs;
  thr_ref *refs;
} thr_msg;

typedef struct thr_queue {
  thr_obj h;
  pthread_mutex_t m;
  pthread_cond_t notempty, notfull;
  thr_msg *ring;
  int alloc, head, count, limit, closed;
} thr_queue;

static void msg_free(thr_msg *msg, int releaserefs) {
  int i, foreign = 0;
  for (i = 0; i < msg->nrefs; i++) {
    if (releaserefs) {
      if (strcmp(msg->refs[i].ctor, "threads._adopt") == 0) {
        thr_obj *o = thr_adopt((int64_t)(intptr_t)msg->refs[i].ptr);
        if (o != NULL) thr_release(o);
      } else {
        foreign++;
      }
    }
    free(msg->refs[i].ctor);
  }
  if (foreign > 0)
    fprintf(stderr, "threads: a queue was freed holding %d unread shared object(s) of other packages: leaked\n",
            foreign);
  free(msg->refs);
  free(msg->bytes);
}

void thr_queue_destroy(thr_obj *o) {
  thr_queue *q = (thr_queue *)o;
  while (q->count > 0) {
    msg_free(&q->ring[q->head], 1);
    q->head = (q->head + 1) % q->alloc;
    q->count--;
  }
  free(q->ring);
  pthread_cond_destroy(&q->notempty);
  pthread_cond_destroy(&q->notfull);
  pthread_mutex_destroy(&q->m);
  free(q);
}

/* core.queue(limit) or core.queue_open(id) */
static int q_new(lua_State *L) {
  lua_Integer limit = luaL_checkinteger(L, 1);
  thr_queue *q;
  if (limit < 0 || limit > (1 << 24)) return luaL_error(L, "threads.Queue: size must be 0..16777216, got %d", (int)limit);
  q = calloc(1, sizeof *q);
  if (q == NULL) return luaL_error(L, "threads.Queue: out of memory");
  pthread_mutex_init(&q->m, NULL);
  pthread_cond_init(&q->notempty, NULL);
  pthread_cond_init(&q->notfull, NULL);
  q->limit = (int)limit;
  thr_register(&q->h, THR_QUEUE, 0);
  thr_pushhandle(L, &q->h);
  return 1;
}

static int q_open(lua_State *L) {
  lua_Integer id = luaL_checkinteger(L, 1);
  thr_obj *o = thr_lookup((int64_t)id, THR_QUEUE);
  if (o == NULL) return luaL_error(L, "threads: no live queue has id %d", (int)id);
  thr_pushhandle(L, o);
  return 1;
}

/* copies refs table {ptr1, ctor1, ptr2, ctor2, ...} at idx into msg */
static void copyrefs(lua_State *L, int idx, thr_msg *msg) {
  int n, i;
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  n = (int)luaL_len(L, idx);
  if (n % 2 != 0) luaL_error(L, "threads.Queue:push: refs must be pairs {pointer, constructor, ...}");
  if (n == 0) return;
  msg->refs = calloc((size_t)n / 2, sizeof *msg->refs);
  if (msg->refs == NULL) luaL_error(L, "threads.Queue:push: out of memory");
  for (i = 0; i < n / 2; i++) {
    const char *ctor;
    lua_geti(L, idx, 2 * i + 1);
    lua_geti(L, idx, 2 * i + 2);
    ctor = lua_tostring(L, -1);
    if (!lua_islightuserdata(L, -2) || ctor == NULL) {
      lua_pop(L, 2);
      msg_free(msg, 0);
      luaL_error(L, "threads.Queue:push: ref %d must be a light userdata and a constructor name", i + 1);
    }
    msg->refs[i].ptr = lua_touserdata(L, -2);
    msg->refs[i].ctor = strdup(ctor);
    msg->nrefs = i + 1;
    lua_pop(L, 2);
    if (msg->refs[i].ctor == NULL) {
      msg_free(msg, 0);
      luaL_error(L, "threads.Queue:push: out of memory");
    }
  }
}

/* q:push(tag, bytes [, refs]) */
static int q_push(lua_State *L) {
  thr_queue *q = (thr_queue *)thr_checkobj(L, 1, THR_QUEUE, "threads.Queue:push");
  thr_msg msg;
  size_t len;
  const char *s;
  memset(&msg, 0, sizeof msg);
  msg.tag = luaL_checkinteger(L, 2);
  s = luaL_checklstring(L, 3, &len);
  copyrefs(L, 4, &msg);  /* first: on a bad ref it frees what it copied */
  msg.bytes = malloc(len > 0 ? len : 1);
  if (msg.bytes == NULL) {
    msg_free(&msg, 0);
    return luaL_error(L, "threads.Queue:push: out of memory");
  }
  memcpy(msg.bytes, s, len);
  msg.len = len;
  pthread_mutex_lock(&q->m);
  while (!q->closed && q->limit > 0 && q->count >= q->limit) pthread_cond_wait(&q->notfull, &q->m);
  if (q->closed) {
    pthread_mutex_unlock(&q->m);
    msg_free(&msg, 0);
    return luaL_error(L, "threads.Queue:push: the queue is closed");
  }
  if (q->count == q->alloc) {
    int na = q->alloc ? 2 * q->alloc : 8, i;
    thr_msg *r = malloc((size_t)na * sizeof *r);
    if (r == NULL) {
      pthread_mutex_unlock(&q->m);
      msg_free(&msg, 0);
      return luaL_error(L, "threads.Queue:push: out of memory");
    }
    for (i = 0; i < q->count; i++) r[i] = q->ring[(q->head + i) % q->alloc];
    free(q->ring);
    q->ring = r;
    q->alloc = na;
    q->head = 0;
  }
  q->ring[(q->head + q->count) % q->alloc] = msg;
  q->count++;
  pthread_cond_signal(&q->notempty);
  pthread_mutex_unlock(&q->m);
  return 0;
}

static int waitfor(thr_queue *q, double seconds) {
  struct timespec ts;
  double whole;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (seconds > 1e9) seconds = 1e9;
  ts.tv_nsec += (long)(modf(seconds, &whole) * 1e9);
  ts.tv_sec += (time_t)whole + ts.tv_nsec / 1000000000L;
  ts.tv_nsec %= 1000000000L;
  while (q->count == 0 && !q->closed)
    if (pthread_cond_timedwait(&q->notempty, &q->m, &ts) == ETIMEDOUT) return 0;
  return 1;
}

/* q:pop([seconds]) -> tag, bytes, refs | nil (closed and empty, or timed out) */
static int q_pop(lua_State *L) {
  thr_queue *q = (thr_queue *)thr_checkobj(L, 1, THR_QUEUE, "threads.Queue:pop");
  double seconds = luaL_optnumber(L, 2, -1);
  thr_msg msg;
  int i;
  pthread_mutex_lock(&q->m);
  if (seconds < 0) {
    while (q->count == 0 && !q->closed) pthread_cond_wait(&q->notempty, &q->m);
  } else {
    waitfor(q, seconds);
  }
  if (q->count == 0) {
    pthread_mutex_unlock(&q->m);
    lua_pushnil(L);
    return 1;
  }
  msg = q->ring[q->head];
  q->head = (q->head + 1) % q->alloc;
  q->count--;
  pthread_cond_signal(&q->notfull);
  pthread_mutex_unlock(&q->m);
  lua_pushinteger(L, msg.tag);
  lua_pushlstring(L, msg.bytes, msg.len);
  lua_createtable(L, 2 * msg.nrefs, 0);
  for (i = 0; i < msg.nrefs; i++) {
    lua_pushlightuserdata(L, msg.refs[i].ptr);
    lua_rawseti(L, -2, 2 * i + 1);
    lua_pushstring(L, msg.refs[i].ctor);
    lua_rawseti(L, -2, 2 * i + 2);
  }
  msg_free(&msg, 0);
  return 3;
}

static int q_isfull(lua_State *L) {
  thr_queue *q = (thr_queue *)thr_checkobj(L, 1, THR_QUEUE, "threads.Queue:isfull");
  pthread_mutex_lock(&q->m);
  lua_pushboolean(L, q->limit > 0 && q->count >= q->limit);
  pthread_mutex_unlock(&q->m);
  return 1;
}

static int q_size(lua_State *L) {
  thr_queue *q = (thr_queue *)thr_checkobj(L, 1, THR_QUEUE, "threads.Queue:size");
  pthread_mutex_lock(&q->m);
  lua_pushinteger(L, q->count);
  pthread_mutex_unlock(&q->m);
  lua_pushinteger(L, q->limit);
  return 2;
}

static int q_close(lua_State *L) {
  thr_queue *q = (thr_queue *)thr_checkobj(L, 1, THR_QUEUE, "threads.Queue:close");
  pthread_mutex_lock(&q->m);
  q->closed = 1;
  pthread_cond_broadcast(&q->notempty);
  pthread_cond_broadcast(&q->notfull);
  pthread_mutex_unlock(&q->m);
  return 0;
}

void thr_open_queue(lua_State *L, int core) {
  static const luaL_Reg methods[] = {
    {"push", q_push}, {"pop", q_pop}, {"isfull", q_isfull}, {"size", q_size}, {"close", q_close},
    {NULL, NULL}
  };
  thr_newmetatable(L, THR_QUEUE, methods);
  lua_pushcfunction(L, q_new);
  lua_setfield(L, core, "queue");
  lua_pushcfunction(L, q_open);
  lua_setfield(L, core, "queue_open");
}
