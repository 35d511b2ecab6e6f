/*
** tds_elem.h: the values tds containers hold, and the refcounted header of
** the containers themselves (tds.Hash, tds.Vec, tds.AtomicCounter).
**
** Memory lives outside the Lua heap (malloc), so that millions of entries
** cost the garbage collector nothing to traverse. Ownership:
**  - an element owns its content: a string's bytes, one reference to a
**    nested container or storage, a tensor view (which holds one reference
**    to its storage);
**  - a container (tds_obj) is freed when its last reference goes: Lua
**    boxes, elements of other containers, and references in flight between
**    threads (tds_obj_share / adopt) each hold one. The count is a C11
**    atomic, so containers may be shared between threads (the contents are
**    not locked: concurrent writers race, as in Torch7's tds).
**  - freeing never recurses: a dead container's children are queued on a
**    list (tds_obj.next_dead), so a chain nested a million deep is freed
**    in constant C stack.
** Reference loops (a container inside itself) are never freed: the Lua
** constructors refuse the loops they can see, as documented in docs/tds.md.
*/
#ifndef TDS_ELEM_H
#define TDS_ELEM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "../tensor/th_tensor.h"

typedef enum {
  TDS_NIL = 0,  /* also an empty hash slot */
  TDS_INT,      /* Lua integer */
  TDS_NUM,      /* Lua float */
  TDS_BOOL,
  TDS_STR,
  TDS_OBJ,      /* a tds container (tds_obj) */
  TDS_TENSOR,   /* a tensor view (malloc'd th_tensor holding its storage) */
  TDS_STORAGE,  /* a storage reference */
  TDS_DEAD      /* a removed hash key (tombstone); never a value */
} tds_type;

typedef enum { TDS_HASH = 1, TDS_VEC, TDS_ATOMIC } tds_kind;

#define TDS_MAGIC 0x74647321u  /* "tds!": checks pointers handed between threads */

typedef struct tds_obj {
  uint32_t magic;
  uint8_t kind;            /* tds_kind */
  atomic_int refcount;
  struct tds_obj *next_dead;  /* the free list while being freed */
} tds_obj;

typedef struct tds_elem {
  union {
    int64_t i;
    double n;
    int b;
    struct { char *data; size_t len; } s;
    tds_obj *obj;
    th_tensor *t;
    th_storage *st;
  } v;
  uint8_t type;  /* tds_type */
} tds_elem;

/* --- objects --- */
void tds_obj_init(tds_obj *o, tds_kind kind);
void tds_obj_retain(tds_obj *o);
/* drops one reference; frees the object (and what only it held) at zero */
void tds_obj_release(tds_obj *o);
/* the object behind a pointer handed over by tds_obj_retain, or NULL when
   it does not carry the tds header */
tds_obj *tds_obj_check(void *p);

/* --- elements. A "borrowed" element points at what it names without
   owning it (a Lua string's bytes, a box's container, a tensor userdata's
   view): the binding builds one from a Lua value, lookups use it as is,
   and tds_elem_copy turns it into an owned element a container keeps. --- */
static inline void tds_elem_set_nil(tds_elem *e) { e->type = TDS_NIL; }
static inline void tds_elem_set_int(tds_elem *e, int64_t i) { e->type = TDS_INT; e->v.i = i; }
static inline void tds_elem_set_num(tds_elem *e, double n) { e->type = TDS_NUM; e->v.n = n; }
static inline void tds_elem_set_bool(tds_elem *e, int b) { e->type = TDS_BOOL; e->v.b = b != 0; }
static inline void tds_elem_borrow_string(tds_elem *e, const char *s, size_t len) {
  e->type = TDS_STR; e->v.s.data = (char *)s; e->v.s.len = len;
}
static inline void tds_elem_borrow_obj(tds_elem *e, tds_obj *o) { e->type = TDS_OBJ; e->v.obj = o; }
static inline void tds_elem_borrow_tensor(tds_elem *e, th_tensor *t) { e->type = TDS_TENSOR; e->v.t = t; }
static inline void tds_elem_borrow_storage(tds_elem *e, th_storage *s) { e->type = TDS_STORAGE; e->v.st = s; }
/* an owned copy of src in *dst: copies bytes and views, retains containers
   and storages; -1 when out of memory (dst is then nil) */
int tds_elem_copy(tds_elem *dst, const tds_elem *src);
/* frees an owned element's content and leaves it nil */
void tds_elem_clear(tds_elem *e);

/* key hash and equality: numbers by value (an integral float was made an
   integer by the binding, as Lua does for table keys), strings by bytes,
   containers and storages by identity, tensors by view (same storage,
   offset, sizes and strides) */
uint64_t tds_elem_hash(const tds_elem *e);
int tds_elem_equal(const tds_elem *a, const tds_elem *b);

/* --- memory figures (process-wide) --- */
/* bytes held by live tds containers and their elements, and the count of
   live containers */
int64_t tds_mem_live_bytes(void);
int64_t tds_mem_live_objects(void);
/* bytes allocated since the last take, when at least 'min' (else 0 and
   they stay pending): the binding feeds them to the GC */
int64_t tds_mem_take_pending(int64_t min);
void *tds_mem_alloc(size_t bytes);
void *tds_mem_realloc(void *p, size_t oldbytes, size_t newbytes);
void tds_mem_free(void *p, size_t bytes);

#endif
