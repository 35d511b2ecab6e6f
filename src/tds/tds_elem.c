/*
** tds_elem.c: element copy/free, key hashing and equality, container
** lifetime (atomic refcounts, freeing without recursion) and the memory
** figures of the tds package. See tds_elem.h for the ownership rules.
*/
#include <stdlib.h>
#include <string.h>
#include "tds.h"

/* --- memory: every tds byte goes through here, counted process-wide --- */
static atomic_llong live_bytes, pending_bytes, live_objects;

void *tds_mem_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (p != NULL) {
    atomic_fetch_add(&live_bytes, (long long)bytes);
    atomic_fetch_add(&pending_bytes, (long long)bytes);
  }
  return p;
}

void *tds_mem_realloc(void *p, size_t oldbytes, size_t newbytes) {
  void *q = realloc(p, newbytes ? newbytes : 1);
  if (q != NULL) {
    atomic_fetch_add(&live_bytes, (long long)newbytes - (long long)oldbytes);
    if (newbytes > oldbytes) atomic_fetch_add(&pending_bytes, (long long)(newbytes - oldbytes));
  }
  return q;
}

void tds_mem_free(void *p, size_t bytes) {
  if (p == NULL) return;
  free(p);
  atomic_fetch_sub(&live_bytes, (long long)bytes);
}

int64_t tds_mem_live_bytes(void) { return atomic_load(&live_bytes); }
int64_t tds_mem_live_objects(void) { return atomic_load(&live_objects); }
int64_t tds_mem_take_pending(int64_t min) {
  if (atomic_load(&pending_bytes) < min) return 0;
  return atomic_exchange(&pending_bytes, 0);
}

/* --- objects --- */
void tds_obj_init(tds_obj *o, tds_kind kind) {
  o->magic = TDS_MAGIC;
  o->kind = (uint8_t)kind;
  atomic_init(&o->refcount, 1);
  o->next_dead = NULL;
  atomic_fetch_add(&live_objects, 1);
}

void tds_obj_retain(tds_obj *o) {
  atomic_fetch_add_explicit(&o->refcount, 1, memory_order_relaxed);
}

tds_obj *tds_obj_check(void *p) {
  tds_obj *o = p;
  if (o == NULL || o->magic != TDS_MAGIC || o->kind < TDS_HASH || o->kind > TDS_ATOMIC) return NULL;
  return o;
}

/* the last reference: acq_rel so that every write another thread made
   before its release is seen by the thread that frees */
void tds_obj_drop_into(tds_obj *o, tds_obj **dead) {
  if (atomic_fetch_sub_explicit(&o->refcount, 1, memory_order_acq_rel) != 1) return;
  o->next_dead = *dead;
  *dead = o;
}

static void destroy(tds_obj *o, tds_obj **dead) {
  o->magic = 0;  /* a stale pointer handed between threads is caught by tds_obj_check */
  switch ((tds_kind)o->kind) {
    case TDS_HASH: tds_hash_destroy((tds_hash *)o, dead); break;
    case TDS_VEC: tds_vec_destroy((tds_vec *)o, dead); break;
    case TDS_ATOMIC: tds_mem_free(o, sizeof(tds_atomic)); break;
  }
  atomic_fetch_sub(&live_objects, 1);
}

void tds_obj_release(tds_obj *o) {
  tds_obj *dead = NULL;
  tds_obj_drop_into(o, &dead);
  while (dead != NULL) {
    tds_obj *d = dead;
    dead = d->next_dead;
    destroy(d, &dead);
  }
}

/* --- elements --- */
int tds_elem_copy(tds_elem *dst, const tds_elem *src) {
  switch ((tds_type)src->type) {
    case TDS_STR: {
      char *p = tds_mem_alloc(src->v.s.len + 1);
      if (p == NULL) { dst->type = TDS_NIL; return -1; }
      memcpy(p, src->v.s.data, src->v.s.len);
      p[src->v.s.len] = '\0';
      dst->type = TDS_STR;
      dst->v.s.data = p;
      dst->v.s.len = src->v.s.len;
      return 0;
    }
    case TDS_OBJ:
      tds_obj_retain(src->v.obj);
      *dst = *src;
      return 0;
    case TDS_TENSOR: {
      th_tensor *t = tds_mem_alloc(sizeof *t);
      if (t == NULL) { dst->type = TDS_NIL; return -1; }
      th_tensor_init(t, src->v.t->dtype);
      th_tensor_set_tensor(t, src->v.t);  /* retains the storage */
      t->flags = 0;
      dst->type = TDS_TENSOR;
      dst->v.t = t;
      return 0;
    }
    case TDS_STORAGE:
      th_storage_retain(src->v.st);
      *dst = *src;
      return 0;
    default:
      *dst = *src;
      return 0;
  }
}

void tds_elem_clear_into(tds_elem *e, tds_obj **dead) {
  switch ((tds_type)e->type) {
    case TDS_STR: tds_mem_free(e->v.s.data, e->v.s.len + 1); break;
    case TDS_OBJ: tds_obj_drop_into(e->v.obj, dead); break;
    case TDS_TENSOR:
      th_tensor_clear(e->v.t);
      tds_mem_free(e->v.t, sizeof(th_tensor));
      break;
    case TDS_STORAGE: th_storage_release(e->v.st); break;
    default: break;
  }
  e->type = TDS_NIL;
}

void tds_elem_clear(tds_elem *e) {
  tds_obj *dead = NULL;
  tds_elem_clear_into(e, &dead);
  while (dead != NULL) {
    tds_obj *d = dead;
    dead = d->next_dead;
    destroy(d, &dead);
  }
}

/* splitmix64's finalizer: spreads integers and addresses over all bits */
static uint64_t mix(uint64_t x) {
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* FNV-1a over bytes */
static uint64_t hash_bytes(const void *p, size_t n, uint64_t h) {
  const unsigned char *b = p;
  size_t i;
  for (i = 0; i < n; i++) { h ^= b[i]; h *= 0x100000001b3ULL; }
  return h;
}

uint64_t tds_elem_hash(const tds_elem *e) {
  switch ((tds_type)e->type) {
    case TDS_INT: return mix((uint64_t)e->v.i);
    case TDS_NUM: { uint64_t u; memcpy(&u, &e->v.n, sizeof u); return mix(u ^ 0x9e3779b97f4a7c15ULL); }
    case TDS_BOOL: return mix((uint64_t)e->v.b + 0x51ed27u);
    case TDS_STR: return mix(hash_bytes(e->v.s.data, e->v.s.len, 0xcbf29ce484222325ULL));
    case TDS_OBJ: return mix((uint64_t)(uintptr_t)e->v.obj);
    case TDS_STORAGE: return mix((uint64_t)(uintptr_t)e->v.st);
    case TDS_TENSOR: {
      const th_tensor *t = e->v.t;
      uint64_t h = mix((uint64_t)(uintptr_t)t->storage ^ (uint64_t)t->offset);
      h = hash_bytes(t->size, (size_t)t->ndim * sizeof t->size[0], h ^ (uint64_t)t->ndim);
      return mix(h ^ (uint64_t)t->dtype);
    }
    default: return 0;
  }
}

int tds_elem_equal(const tds_elem *a, const tds_elem *b) {
  if (a->type != b->type) return 0;
  switch ((tds_type)a->type) {
    case TDS_INT: return a->v.i == b->v.i;
    case TDS_NUM: return a->v.n == b->v.n;
    case TDS_BOOL: return a->v.b == b->v.b;
    case TDS_STR: return a->v.s.len == b->v.s.len && memcmp(a->v.s.data, b->v.s.data, a->v.s.len) == 0;
    case TDS_OBJ: return a->v.obj == b->v.obj;
    case TDS_STORAGE: return a->v.st == b->v.st;
    case TDS_TENSOR: {
      const th_tensor *x = a->v.t, *y = b->v.t;
      int d;
      if (x->storage != y->storage || x->offset != y->offset || x->ndim != y->ndim || x->dtype != y->dtype)
        return 0;
      for (d = 0; d < x->ndim; d++)
        if (x->size[d] != y->size[d] || x->stride[d] != y->stride[d]) return 0;
      return 1;
    }
    default: return 0;
  }
}
